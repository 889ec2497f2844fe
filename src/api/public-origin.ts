// The address a request's links name (its files, OAuth, offers, receipts' did:web, the discovery documents):
// PUBLIC_BASE_URL where it is set (production requires it), the same for every caller. Without it (development), the
// loopback address the request came to — localhost, 127.0.0.1 or [::1] at the port it reached — so a page opened at
// 127.0.0.1 is linked at 127.0.0.1; any other Host (forged, or a DNS-rebound name) gets the default, never its own.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Request, RequestHandler } from 'express';
import { publicBaseUrl, type ServerConfig } from '../config/config.ts';
import { loopbackHosts, normalHost } from '../net/loopback.ts';

type Site = Pick<ServerConfig, 'publicBaseUrl' | 'port'>;

/** The base URL of this request's links, without a trailing slash. */
export function publicBase(server: Site, req: Pick<Request, 'headers' | 'socket'>): string {
  if (server.publicBaseUrl) return publicBaseUrl(server);
  const host = normalHost(req.headers.host ?? '');
  const port = req.socket.localPort;
  if (host && port && loopbackHosts(port).includes(host)) return `http://${host}`;
  return publicBaseUrl(server);
}

const servedBase = new AsyncLocalStorage<string>();

/**
 * Keeps each request's public base for what is called without the request in hand: the MCP SDK's OAuth handlers call
 * the OAuth site (its issuer, resource and endpoints), which must name the address the client used (RFC 8414).
 */
export const publicBaseScope =
  (server: Site): RequestHandler =>
  (req, _res, next) =>
    servedBase.run(publicBase(server, req), next);

/** The public base of the request being served; undefined outside one. */
export const currentPublicBase = (): string | undefined => servedBase.getStore();

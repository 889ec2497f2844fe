// DNS rebinding: a web page whose own name is made to resolve to this server must not reach /mcp through its visitor's
// browser. So /mcp takes as Host, and as Origin when one is sent (browsers do; other clients need not), only this
// server's own addresses: PUBLIC_BASE_URL's, and the loopback names at the port the request came in on.
import type { RequestHandler } from 'express';
import { ApiError } from '../errors.ts';

const loopbackNames = ['localhost', '127.0.0.1', '[::1]'];

/** `host[:port]` as URL writes it (lower case, no default port), or undefined for what is not one. */
const normalHost = (authority: string) =>
  URL.canParse(`http://${authority}`) ? new URL(`http://${authority}`).host : undefined;

const originHost = (origin: string) => (URL.canParse(origin) ? new URL(origin).host : undefined);

const loopbackHosts = (port: string | number) => loopbackNames.map((name) => normalHost(`${name}:${port}`)!);

/** PUBLIC_BASE_URL's host; all the loopback names at its port when it is a loopback one (`npm run cluster`'s). */
function publishedHosts(publicBaseUrl: string | undefined): string[] {
  if (!publicBaseUrl) return [];
  const url = new URL(publicBaseUrl);
  if (!loopbackNames.includes(url.hostname)) return [url.host];
  return loopbackHosts(url.port || (url.protocol === 'https:' ? 443 : 80));
}

const foreign = (header: string, value: string | undefined) =>
  new ApiError(
    'forbidden',
    `${header} ${value ?? '(none)'} is not an address of this server; its MCP endpoint answers only at its own (PUBLIC_BASE_URL).`,
  );

export function ownHostsOnly(publicBaseUrl: string | undefined): RequestHandler {
  const published = publishedHosts(publicBaseUrl);
  return (req, _res, next) => {
    const own = new Set([...published, ...loopbackHosts(req.socket.localPort ?? 80)]);
    const { host, origin } = req.headers;
    if (!own.has(normalHost(host ?? '') ?? '')) throw foreign('Host', host);
    if (origin !== undefined && !own.has(originHost(origin) ?? '')) throw foreign('Origin', origin);
    next();
  };
}

// The address the discovery documents (/llms.txt, the well-known cards, did.json) name in their links: the request's
// public base (public-origin.ts). PUBLIC_BASE_URL is the same for every caller; without it the document names the
// loopback address the request came to, so no shared cache may hand it to another.
import type { Request } from 'express';
import type { ServerConfig } from '../../config/config.ts';
import { publicBase } from '../public-origin.ts';

export interface DocumentBase {
  /** Without a trailing slash. */
  base: string;
  cacheControl: string;
}

export function documentBase(server: Pick<ServerConfig, 'publicBaseUrl' | 'port'>, req: Request): DocumentBase {
  const cacheControl = server.publicBaseUrl ? 'public, max-age=300' : 'private, max-age=300';
  return { base: publicBase(server, req), cacheControl };
}

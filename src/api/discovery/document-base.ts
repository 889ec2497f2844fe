// The address the discovery documents (/llms.txt, the well-known cards) name in their links: PUBLIC_BASE_URL where it
// is set, the same for every caller; else the one the request came to (Host, X-Forwarded-Proto), which is the caller's
// own, so no shared cache may hand it to another.
import type { Request } from 'express';

export interface DocumentBase {
  /** Without a trailing slash. */
  base: string;
  cacheControl: string;
}

export function documentBase(publicBaseUrl: string | undefined, req: Request): DocumentBase {
  if (publicBaseUrl) return { base: publicBaseUrl.replace(/\/$/, ''), cacheControl: 'public, max-age=300' };
  return { base: `${req.protocol}://${req.get('host')}`, cacheControl: 'private, max-age=300' };
}

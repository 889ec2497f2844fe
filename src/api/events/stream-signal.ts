// When an event stream ends besides with its events: its caller goes or the server shuts down, its lifetime is up
// (the client resumes with Last-Event-ID, as EventSource does by itself), or its credential no longer authenticates,
// looked at on every heartbeat: a revoked key's stream ends within the key cache's few seconds, a wallet session's
// once its token expires.
import type { Request, Response } from 'express';
import type { Principal } from '../../accounts/api-keys.ts';
import type { AuthRequirement } from '../auth.ts';
import type { ApiContext } from '../endpoint.ts';
import { hangUpSignal } from '../shutdown-gate.ts';

/** A response for the re-check alone: the stream's own has sent its headers, and a refusal's are not for it. */
const detachedResponse = () => {
  const view = { locals: {}, set: () => view, setHeader: () => view };
  return view as unknown as Response;
};

export function eventStreamSignal(
  ctx: Pick<ApiContext, 'config' | 'authenticate'>,
  { req, res, principal, auth }: { req: Request; res: Response; principal: Principal; auth: AuthRequirement },
): AbortSignal {
  const ended = new AbortController();
  const { heartbeatMs, maxStreamMs } = ctx.config.events;
  const lifetime = setTimeout(() => ended.abort(), maxStreamMs);
  // A task's token is never revoked (it ends with its task's stream); an API key may be at any time, and a wallet's
  // session token expires.
  const recheck =
    principal.task === undefined && auth !== 'none'
      ? setInterval(() => {
          ctx.authenticate(req, detachedResponse(), auth).catch(() => ended.abort());
        }, heartbeatMs)
      : undefined;
  const signal = AbortSignal.any([hangUpSignal(res), ended.signal]);
  signal.addEventListener(
    'abort',
    () => {
      clearTimeout(lifetime);
      clearInterval(recheck);
    },
    { once: true },
  );
  return signal;
}

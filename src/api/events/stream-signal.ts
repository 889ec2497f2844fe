// When an event stream ends besides with its events: its caller goes or the server shuts down, its lifetime is up
// (the client resumes with Last-Event-ID, as EventSource does by itself), or its credential no longer authenticates,
// looked at on every heartbeat: a revoked key's stream ends within the key cache's few seconds, a wallet session's
// once its token expires.
import type { Principal } from '../../accounts/api-keys.ts';
import type { AuthRequirement } from '../auth.ts';
import type { Call } from '../call.ts';
import type { ApiContext } from '../endpoint.ts';

export function eventStreamSignal(
  ctx: Pick<ApiContext, 'config'>,
  {
    call,
    principal,
    auth,
  }: { call: Pick<Call, 'authenticate' | 'exchange'>; principal: Principal; auth: AuthRequirement },
): AbortSignal {
  const ended = new AbortController();
  const { heartbeatMs, maxStreamMs } = ctx.config.events;
  const lifetime = setTimeout(() => ended.abort(), maxStreamMs);
  // A task's token is never revoked (it ends with its task's stream); an API key may be at any time, and a wallet's
  // session token expires.
  const recheck =
    principal.task === undefined && auth !== 'none'
      ? setInterval(() => {
          call.authenticate(auth).catch(() => ended.abort());
        }, heartbeatMs)
      : undefined;
  const signal = AbortSignal.any([call.exchange.signal, ended.signal]);
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

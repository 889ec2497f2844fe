// The OAuth endpoints' limits, for the SDK's handlers (express-rate-limit, in each process). A request naming a client
// the gateway knows counts per client and address: a hosted assistant whose servers register and refresh for many users
// from a few addresses is not starved by one shared count, and nobody elsewhere can spend a client's count. Any other
// request (an unknown client id, a registration) counts per address, so made-up client ids buy no fresh counts.
import type { Request } from 'express';
import type { OAuthConfig } from '../../config/config.ts';
import { callerAddress, trialNetwork } from '../client-address.ts';
import type { OAuthSite } from './oauth-site.ts';

const windowMs = 15 * 60_000;

const clientIdOf = (req: Request): string | undefined => {
  const fields = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown> | undefined;
  const id = fields?.client_id;
  return typeof id === 'string' && id !== '' && id.length <= 2048 ? id : undefined;
};

export function oauthRateLimit(site: OAuthSite, config: Pick<OAuthConfig, 'requestsPerClient' | 'requestsPerAddress'>) {
  const countedPerClient = new WeakSet<Request>();
  return {
    windowMs,
    async keyGenerator(req: Request) {
      const address = trialNetwork(callerAddress(req));
      const clientId = clientIdOf(req);
      if (clientId === undefined || !(await site.clients.isKnown(clientId))) return `address:${address}`;
      countedPerClient.add(req);
      return `client:${clientId} ${address}`;
    },
    limit: (req: Request) => (countedPerClient.has(req) ? config.requestsPerClient : config.requestsPerAddress),
    // Its checks of TRUST_PROXY and of the key do not apply: req.ip follows TRUST_PROXY, and the key is ours.
    validate: { trustProxy: false, xForwardedForHeader: false, keyGeneratorIpFallback: false },
  };
}

/** Registrations name no client yet: per address only. */
export const registrationRateLimit = (config: Pick<OAuthConfig, 'requestsPerAddress'>) => ({
  windowMs,
  limit: config.requestsPerAddress,
  keyGenerator: (req: Request) => `address:${trialNetwork(callerAddress(req))}`,
  validate: { trustProxy: false, xForwardedForHeader: false, keyGeneratorIpFallback: false },
});

// What the api role's requests share, built once per app: the context every endpoint and MCP tool runs with (the
// authenticator, OAuth, rate limits, the task event feed, …) and the signing keys the DID document publishes.
import { clientMetadataFetcher, type FetchClientMetadata } from '../accounts/oauth/client-metadata-documents.ts';
import { createLastUsedRecorder } from '../accounts/api-keys.ts';
import { createRateLimiter } from '../accounts/rate-limiter.ts';
import { createAuthenticator } from '../api/auth.ts';
import type { ApiContext } from '../api/endpoint.ts';
import { createLongLivedSlots } from '../api/long-lived.ts';
import { oauthSite } from '../api/oauth/oauth-site.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Config } from '../config/config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import { createEndedTasks } from '../generations/ended-tasks.ts';
import { createTaskEventFeed } from '../generations/events/event-feed.ts';
import type { Logger } from '../infra/logger.ts';
import { paymentMethods, type PaymentMethods, type PaymentServices } from '../payments/methods/registered.ts';
import { signerSources } from '../payments/receipts/receipts.ts';
import { type SigningKeys, signingKeySources } from '../payments/receipts/signing-key.ts';
import type { Storage } from '../storage/storage.ts';
import type { TemporalDeps } from '../use-cases/temporal/generation-workflows.ts';

export interface ApiServiceDeps {
  config: Config;
  prisma: PrismaClient;
  /** The database `prisma` reaches: the task event feed LISTENs on a connection of its own to it. */
  databaseUrl: string;
  catalog: Catalog;
  storage: Storage;
  temporal: TemporalDeps;
  logger: Logger;
  /** The x402 facilitator, one per process: its nonce manager must see every settlement the process sends. */
  facilitator: PaymentServices['facilitator'];
  /** The ways to pay; default: this build's registered methods (a test may register one of its own). */
  paymentMethods?: PaymentMethods;
  /** How OAuth client metadata documents are read (tests trust their own certificate); default: the public web. */
  clientMetadata?: FetchClientMetadata;
}

export interface ApiServices {
  ctx: ApiContext;
  signingKeys: SigningKeys;
}

export function buildApiServices(deps: ApiServiceDeps): ApiServices {
  const { config, prisma, logger } = deps;
  const oauth = oauthSite(prisma, config.server, config.oauth, deps.clientMetadata ?? clientMetadataFetcher());
  const recordKeyUse = createLastUsedRecorder(prisma, 60_000, (error) =>
    logger.warn({ err: error }, 'could not record key use'),
  );
  const signingKeys = signingKeySources(prisma, config.receipts.signingKeysSecret);
  const ctx: ApiContext = {
    prisma,
    config,
    catalog: deps.catalog,
    temporal: deps.temporal,
    authenticate: createAuthenticator(prisma, recordKeyUse, config.accounts.apiKeyCacheSeconds * 1000, oauth),
    oauth,
    payments: deps.paymentMethods ?? paymentMethods,
    facilitator: deps.facilitator,
    signers: signerSources(signingKeys),
    rateLimiter: createRateLimiter(prisma, config.rateLimits),
    storage: deps.storage,
    endedTasks: createEndedTasks(),
    taskEvents: createTaskEventFeed(deps.databaseUrl, (error) =>
      logger.warn({ err: error }, 'the task event feed lost its database connection'),
    ),
    longLived: createLongLivedSlots(config.longLived),
  };
  return { ctx, signingKeys };
}

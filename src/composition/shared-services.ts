// What the api and worker roles of one process share, built once here and handed to both: the database client (and
// the URL it reaches, for connections of their own), storage, the providers' adapters and the payment methods' services.
import type { Catalog } from '../catalog/catalog.ts';
import { type Config, publicBaseUrl } from '../config/config.ts';
import { createPrisma, type PrismaClient } from '../db/prisma.ts';
import type { Logger } from '../infra/logger.ts';
import type { Stop } from '../infra/processes/stops.ts';
import type { TemporalTracing } from '../use-cases/temporal/tracing.ts';
import { paymentServices, type PaymentServices } from '../payments/methods/registered.ts';
import { createProviders, type Providers } from '../providers/registry.ts';
import { configuredStorage } from '../storage/configured-storage.ts';
import type { Storage } from '../storage/storage.ts';

export interface SharedServices {
  /** `temporal` names the server this process reaches (the embedded dev server's address when it started one). */
  config: Config;
  catalog: Catalog;
  logger: Logger;
  prisma: PrismaClient;
  databaseUrl: string;
  storage: Storage;
  providers: Providers;
  /** One per process: its nonce manager must see every settlement the process sends. */
  facilitator: PaymentServices['facilitator'];
  /** OpenTelemetry, when on: the api's client and the workers trace workflows and activities. */
  tracing?: TemporalTracing;
}

// Pool connections still checked out (a query the cut-off worker abandoned, waiting on a lock) only end when
// PostgreSQL's fast shutdown, next, ends their sessions: do not wait for them here.
const disconnectWaitMs = 1_000;

/** Builds the shared services, pushing the database pool's stop onto `stops`. */
export function buildSharedServices(
  given: Pick<SharedServices, 'config' | 'catalog' | 'logger' | 'databaseUrl' | 'tracing'> & { dataDir: string },
  stops: Stop[],
): SharedServices {
  const { dataDir, ...rest } = given;
  const prisma = createPrisma(given.databaseUrl);
  stops.push({
    name: 'database pool',
    stop: () => Promise.race([prisma.$disconnect(), new Promise((done) => setTimeout(done, disconnectWaitMs))]),
  });
  return {
    ...rest,
    prisma,
    storage: configuredStorage(given.config.storage, dataDir, publicBaseUrl(given.config.server)),
    providers: createProviders(given.config),
    ...paymentServices(given.config),
  };
}

import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { createApp, type AppDeps } from '../../src/app.ts';
import { buildApiServices, type ApiServiceDeps } from '../../src/composition/api-services.ts';
import type { Config } from '../../src/config/config.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { createLocalStorage } from '../../src/storage/local-storage.ts';
import { createProviders } from '../../src/providers/registry.ts';
import { configuredFacilitator } from '../../src/payments/methods/x402/facilitator.ts';
import { type ConfigOverrides, testConfig } from './config.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { closeServer, listenLocally } from '../../harness/local-server.ts';
import { testLogger } from './logger.ts';

export interface TestApp {
  url: string;
  /** The app's own configuration: what is known only once it listens (its URL) may be set on it. */
  config: Config;
  close(): Promise<void>;
}

/** `database`: the client the app queries and the URL its event feed listens on (TestDatabase has both). */
export type TestAppDeps = Pick<Partial<AppDeps>, 'endpoints' | 'health' | 'shutdownGate' | 'providers' | 'logger'> &
  Omit<Partial<ApiServiceDeps>, 'config' | 'prisma' | 'databaseUrl'> & {
    database: Pick<TestDatabase, 'prisma' | 'url'>;
    config?: ConfigOverrides;
    port?: number;
  };

/** Where the test app's local storage keeps its files (its /files/ links serve them). */
export const testFilesDir = join(tmpdir(), 'gateway-test-files');

/** Local storage in `testFilesDir`, as the test app and activities built outside a gateway use it. */
export const testStorage = () => createLocalStorage(testFilesDir, 'http://localhost');

/** The real Express app on an ephemeral port, so tests speak real HTTP to it. */
/** For apps whose tests never reach Temporal: a real client that connects only if used (and then fails). */
const unusedTemporal = () => ({
  client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }) }),
  taskQueue: 'unused',
});

export async function startTestApp({ config, port = 0, database, ...deps }: TestAppDeps): Promise<TestApp> {
  const appConfig = testConfig(config ?? {});
  const services = buildApiServices({
    config: appConfig,
    prisma: database.prisma,
    databaseUrl: database.url,
    facilitator: deps.facilitator ?? configuredFacilitator(appConfig),
    logger: deps.logger ?? testLogger,
    catalog: deps.catalog ?? loadCatalog(),
    storage: deps.storage ?? testStorage(),
    temporal: deps.temporal ?? unusedTemporal(),
    clientMetadata: deps.clientMetadata,
    paymentMethods: deps.paymentMethods,
  });
  const app = createApp({
    ...services,
    providers: deps.providers ?? createProviders(appConfig),
    logger: deps.logger ?? testLogger,
    health: deps.health ?? {},
    endpoints: deps.endpoints,
    shutdownGate: deps.shutdownGate,
  });
  const server = createServer(app);
  const { url } = await listenLocally(server, port);
  return { url, config: appConfig, close: () => closeServer(server) };
}

export interface AppWithDatabase {
  database: TestDatabase;
  app: TestApp;
}

/** A fresh database and the app on it for the calling file's tests (filled in beforeAll, closed in afterAll). */
/** `deps` may be a function, read in beforeAll: for configuration known only then (a chain's URL). */
export function useAppWithDatabase(
  deps: Omit<TestAppDeps, 'database'> | (() => Omit<TestAppDeps, 'database'>) = {},
): AppWithDatabase {
  const context = {} as AppWithDatabase;
  beforeAll(async () => {
    context.database = await createTestDatabase();
    context.app = await startTestApp({
      ...(typeof deps === 'function' ? deps() : deps),
      database: context.database,
    });
  });
  afterAll(async () => {
    await context.app?.close();
    await context.database?.drop();
  });
  return context;
}

/** Every chain enabled, at an address nothing listens on: for tests that show deposit addresses but read no chain. */
export const unreadChains = {
  chains: {
    base: { rpcUrl: 'http://127.0.0.1:9/base' },
    polygon: { rpcUrl: 'http://127.0.0.1:9/polygon' },
    ethereum: { rpcUrl: 'http://127.0.0.1:9/ethereum' },
  },
} satisfies ConfigOverrides;

import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { createApp, type AppDeps } from '../../src/app.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { testLogger } from './logger.ts';

export interface TestApp {
  url: string;
  close(): Promise<void>;
}

export type TestAppDeps = Omit<Partial<AppDeps>, 'config'> & Pick<AppDeps, 'prisma'> & { config?: Partial<Config> };

/** The real Express app on an ephemeral port, so tests speak real HTTP to it. */
export async function startTestApp({ config, ...deps }: TestAppDeps): Promise<TestApp> {
  const app = createApp({ config: { ...loadConfig({ NODE_ENV: 'test' }, []), ...config }, logger: testLogger, health: {}, catalog: loadCatalog(), ...deps });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}

export interface AppWithDatabase {
  database: TestDatabase;
  app: TestApp;
}

/** A fresh database and the app on it for the calling file's tests (filled in beforeAll, closed in afterAll). */
export function useAppWithDatabase(deps: Omit<TestAppDeps, 'prisma'> = {}): AppWithDatabase {
  const context = {} as AppWithDatabase;
  beforeAll(async () => {
    context.database = await createTestDatabase();
    context.app = await startTestApp({ ...deps, prisma: context.database.prisma });
  });
  afterAll(async () => {
    await context.app?.close();
    await context.database?.drop();
  });
  return context;
}

// What the api and worker roles of a split layout share, run here as `npm start` embeds them: PostgreSQL (migrated)
// and the Temporal dev server, each on its own port in `dir`, each killable and restartable alone on the same data.
import { join } from 'node:path';
import { applyMigrations } from '../../src/db/migrate.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../src/infra/embedded-postgres.ts';
import { createLogger } from '../../src/infra/logger.ts';
import { killGroup, sleep } from '../../src/infra/processes/supervised-process.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../src/infra/temporal-dev-server.ts';
import { temporalCliPath } from '../../src/infra/tools.ts';
import { devServerSearchAttributeArgs } from '../../src/use-cases/temporal/search-attributes.ts';
import { freePort } from '../ports.ts';

export interface SplitInfrastructure {
  databaseUrl: string;
  temporalAddress: string;
  /** kill -9 of PostgreSQL's group, then after `downMs` the same database again. */
  restartPostgres(downMs: number): Promise<void>;
  /** kill -9 of the dev server's group, then after `downMs` the same dev server again. */
  restartTemporal(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startSplitInfrastructure(dir: string): Promise<SplitInfrastructure> {
  const logger = createLogger({ logLevel: 'error' });
  const [pgPort, temporalPort, uiPort] = [await freePort(), await freePort(), await freePort()];
  const postgres = () =>
    startEmbeddedPostgres({ dataDir: join(dir, 'postgres'), port: pgPort, database: 'gateway', logger });
  const temporal = () =>
    startTemporalDevServer({
      cliPath: temporalCliPath,
      dataDir: join(dir, 'temporal'),
      port: temporalPort,
      uiPort,
      namespace: 'default',
      logger,
      extraArgs: devServerSearchAttributeArgs(),
    });
  let database: EmbeddedDatabase = await postgres();
  let devServer: TemporalDevServer | undefined;
  try {
    devServer = await temporal();
    // Applied once here, so processes starting together do not all wait on the migration lock.
    await applyMigrations(database.url);
  } catch (error) {
    await devServer?.stop();
    await database.stop();
    throw error;
  }
  let running: TemporalDevServer = devServer;
  return {
    databaseUrl: database.url,
    temporalAddress: running.address,
    async restartPostgres(downMs) {
      await killGroup(database.pid);
      await sleep(downMs);
      database = await postgres();
    },
    async restartTemporal(downMs) {
      await killGroup(running.pid);
      await sleep(downMs);
      running = await temporal();
    },
    async stop() {
      await running.stop();
      await database.stop();
    },
  };
}

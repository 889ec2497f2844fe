// The embedded default (embedded PostgreSQL, Temporal dev server, chain, API and worker) started in this process
// by `npm start`'s own startRuntime, in a scratch DATA_DIR on free ports: what the benchmark's in-process rows and
// the read profile load.
import { rm } from 'node:fs/promises';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { type Config, loadConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/infra/logger.ts';
import { type Stop, stopAll } from '../../src/infra/processes/stops.ts';
import { startRuntime } from '../../src/runtime.ts';
import { freePortSettings, scratchDir } from '../scratch-env.ts';

export interface InProcessEmbedded {
  config: Config;
  dataDir: string;
  /** Run at stop, last added first, with the service's own. */
  stops: Stop[];
  /** Stops the service and removes its DATA_DIR. */
  stop(): Promise<void>;
}

/** `prefix` names the scratch directory; `env` is the configuration on top of the scratch one. */
export async function startInProcessEmbedded(prefix: string, env: Record<string, string>): Promise<InProcessEmbedded> {
  const dataDir = await scratchDir(prefix);
  const ports = await freePortSettings([
    'PORT',
    'EMBEDDED_POSTGRES_PORT',
    'TEMPORAL_DEV_SERVER_PORT',
    'TEMPORAL_UI_PORT',
  ]);
  const config = loadConfig({ DATA_DIR: dataDir, ...ports, LOG_LEVEL: 'error', ...env }, []);
  const logger = createLogger(config.server);
  const stops: Stop[] = [];
  const stop = async () => {
    await stopAll(stops, logger);
    await rm(dataDir, { recursive: true, force: true });
  };
  await startedOrStopped(() => startRuntime(config, loadCatalog(), logger, stops), stop);
  return { config, dataDir, stops, stop };
}

/** Runs `start`; if it fails, `stop` cleans up what it left before the failure is rethrown. */
export async function startedOrStopped(start: () => Promise<unknown>, stop: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (error) {
    await stop();
    throw error;
  }
}

// Entry point of `npm start` (scripts/start.mjs): reads the configuration and the catalog, starts the runtime
// for the role, and stops it in order on SIGINT, SIGTERM or SIGHUP.
import { type Catalog, CatalogError, loadCatalog } from './catalog/catalog.ts';
import { type Config, ConfigError, loadConfig, shutdownBudget } from './config/config.ts';
import { createLogger } from './infra/logger.ts';
import { startRuntime } from './runtime.ts';
import type { Stop } from './infra/processes/stops.ts';
import { stopOnSignals } from './stop-on-signals.ts';

async function main(): Promise<void> {
  let config: Config;
  let catalog: Catalog;
  try {
    config = loadConfig();
    catalog = loadCatalog();
  } catch (error) {
    if (!(error instanceof ConfigError || error instanceof CatalogError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  const logger = createLogger(config.server);
  const stops: Stop[] = [];
  // Bounded whatever the parts are doing: the children we run are stopped on the way out (see src/infra).
  const shutdown = stopOnSignals(logger, stops, shutdownBudget(config.server).graceMs);
  try {
    const { banner } = await shutdown.starting(startRuntime(config, catalog, logger, stops));
    if (shutdown.stopping()) return;
    console.log(
      `\nGeneration gateway is up (role ${config.server.role}):\n${banner.map((line) => `  ${line}`).join('\n')}\n  Press Ctrl-C to stop.\n`,
    );
  } catch (error) {
    logger.fatal({ err: error }, 'start failed');
    console.error(`Start failed: ${(error as Error).message}`);
    await shutdown.stop('start failed', 1);
  }
}

await main();

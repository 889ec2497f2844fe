// Entry point of `npm start` (scripts/start.mjs): reads the configuration and the catalog, starts the runtime
// for the role, and stops it in order on SIGINT, SIGTERM or SIGHUP.
import { type Catalog, CatalogError, loadCatalog } from './catalog/catalog.ts';
import { type Config, ConfigError, loadConfig, shutdownBudget } from './config/config.ts';
import { createLogger } from './infra/logger.ts';
import { startRuntime, type Stop, stopAll } from './runtime.ts';

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
  let starting: Promise<unknown> | undefined;
  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string, exitCode: number) => {
    stopping ??= (async () => {
      logger.info({ reason }, 'shutting down');
      // Bounded whatever the parts are doing: the children we run are stopped on the way out (see src/infra).
      const { graceMs } = shutdownBudget(config.server);
      setTimeout(() => {
        logger.warn({ graceMs }, 'shutdown grace time is up: exiting while parts are still stopping');
        process.exit(exitCode);
      }, graceMs).unref();
      // A signal during start-up waits for what is starting, so it can be stopped too.
      await starting?.catch(() => undefined);
      await stopAll(stops, logger);
      logger.info('stopped');
      process.exit(exitCode);
    })();
    return stopping;
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal, 0));

  try {
    starting = startRuntime(config, catalog, logger, stops);
    const { banner } = (await starting) as Awaited<ReturnType<typeof startRuntime>>;
    if (stopping) return;
    console.log(
      `\nGeneration gateway is up (role ${config.server.role}):\n${banner.map((line) => `  ${line}`).join('\n')}\n  Press Ctrl-C to stop.\n`,
    );
  } catch (error) {
    logger.fatal({ err: error }, 'start failed');
    console.error(`Start failed: ${(error as Error).message}`);
    await shutdown('start failed', 1);
  }
}

await main();

// Entry point of `npm run cluster` (scripts/cluster.mjs): starts the scale-out layout as processes on this machine
// (cluster-runtime.ts) and stops it in order on SIGINT, SIGTERM or SIGHUP, as `npm start` does its parts.
import { loadClusterConfig, startCluster } from './cluster-runtime.ts';
import { type Config, ConfigError, shutdownBudget } from '../src/config/config.ts';
import { createLogger } from '../src/infra/logger.ts';
import type { Stop } from '../src/infra/processes/stops.ts';
import { stopOnSignals } from '../src/stop-on-signals.ts';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadClusterConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  const logger = createLogger(config.server);
  const stops: Stop[] = [];
  // api and worker processes each take up to the grace time; the rest is seconds.
  const shutdown = stopOnSignals(logger, stops, 2 * shutdownBudget(config.server).graceMs + 60_000, 'the cluster');
  try {
    const started = Date.now();
    const { banner } = await shutdown.starting(startCluster(config, logger, stops));
    if (shutdown.stopping()) return;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `\nGeneration gateway cluster is up (${seconds} s):\n${banner.map((line) => `  ${line}`).join('\n')}\n  Press Ctrl-C to stop.\n`,
    );
  } catch (error) {
    logger.fatal({ err: error }, 'cluster start failed');
    console.error(`Cluster start failed: ${(error as Error).message}`);
    await shutdown.stop('start failed', 1);
  }
}

await main();

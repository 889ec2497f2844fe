// `npm run bench`'s embedded default: `npm start` as a user runs it (the compiled service in a process of its own,
// with its embedded PostgreSQL, Temporal dev server and local chain) in a scratch data directory on free ports. The
// client is this process, so what the table says of the service's CPU and memory is the service's alone.
import { rm } from 'node:fs/promises';
import { loadConfig } from '../src/config/config.ts';
import type { Stop } from '../src/infra/processes/stops.ts';
import { stopAll } from '../src/infra/processes/stops.ts';
import { createLogger } from '../src/infra/logger.ts';
import { launchGatewayProcess } from '../harness/stacks/gateway-process.ts';
import { scratchServiceEnv } from '../harness/scratch-env.ts';
import { startedOrStopped } from '../harness/stacks/in-process-embedded.ts';
import { type BenchService, embeddedEndpoints } from './embedded-service.ts';
import { peakRssMb, treeCpuByKind, treePids } from './process-cpu.ts';
import { sampleThreadCpu } from './thread-cpu.ts';

/** The service's processes by kind: PostgreSQL's backends and the dev server apart from the Node processes. */
function kindOf(command: string): string {
  if (command.startsWith('temporal')) return 'Temporal';
  if (command.startsWith('postgres')) return 'PostgreSQL';
  if (command.startsWith('anvil')) return 'local chain';
  return 'service (Node)';
}

export async function startNpmStartService(name: string, env: Record<string, string> = {}): Promise<BenchService> {
  const given: Record<string, string> = {
    ...(await scratchServiceEnv(`gateway-${name}-`, ['TEMPORAL_DEV_SERVER_PORT', 'METRICS_PORT'])),
    LOG_LEVEL: 'error',
    ...env,
  };
  const config = loadConfig(given, []);
  const service = await launchGatewayProcess({
    name: 'npm start',
    env: { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2', ...given },
    startTimeoutMs: 180_000,
  });
  const stops: Stop[] = [
    { name: 'scratch data directory', stop: () => rm(given.DATA_DIR!, { recursive: true, force: true }) },
    { name: 'npm start', stop: () => service.stop() },
  ];
  const logger = createLogger(config.server);
  const stop = () => stopAll(stops, logger);
  await startedOrStopped(() => service.up, stop);
  return {
    ...embeddedEndpoints(config, stops),
    dataDir: given.DATA_DIR!,
    layout: 'embedded default (`npm start`, the compiled service in a process of its own), client in this process',
    sampleCpu() {
      const usage = process.cpuUsage();
      return { ...treeCpuByKind(service.pid, kindOf), 'this client': (usage.user + usage.system) / 1000 };
    },
    sampleThreads: () => sampleThreadCpu(treePids(service.pid, kindOf, 'service (Node)')),
    peakRss: () => new Map([['the service process (api and worker)', peakRssMb(service.pid)]]),
    stops,
    stop,
  };
}

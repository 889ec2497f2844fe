// `npx tsx bench/profile.ts reads|admissions`: where the process's CPU goes. Starts the embedded default like the
// benchmark, then for 10 s either reads a finished task with 16 in flight (`reads`), or posts local/lanczos upscales
// of an 8×8 PNG open loop at 10/s, a rate the service keeps up with, each run to the end (`admissions`). Prints the
// CPU of each thread of the process per request, and the main thread's self time (V8's sampling profiler) by package
// or source file and by function.
import { Session } from 'node:inspector/promises';
import { startEmbeddedService } from './embedded-service.ts';
import { startInputs } from './inputs.ts';
import { startUpscaleClient } from './upscale-client.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';
import { achievedRate, closedLoop, type Measured, openLoop, percentile } from './load.ts';
import { cpuBetween, sampleCpu } from './process-cpu.ts';
import { sampleThreadCpu, threadCpuBetween } from './thread-cpu.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** `node_modules/<package>`, a source file of ours, or what V8 calls the frame (GC, idle, program). */
function bucketOf(url: string, functionName: string): string {
  if (!url) return `(${functionName || 'native'})`;
  const inModules = url.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const [scope, name] = url.slice(inModules + 'node_modules/'.length).split('/');
    return scope!.startsWith('@') ? `${scope}/${name}` : scope!;
  }
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '').replace(`${process.cwd()}/`, '');
}

function topOf(shares: Map<string, number>, total: number, count: number): string[] {
  return [...shares]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, hits]) => `  ${((100 * hits) / total).toFixed(1).padStart(5)}%  ${name}`);
}

type Mode = 'reads' | 'admissions';

/** Runs `load` under V8's profiler; what each thread of the process and each server spent on it. */
async function profiled(load: () => Promise<Measured>) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  const threadsBefore = sampleThreadCpu();
  const serversBefore = sampleCpu();
  await session.post('Profiler.start');
  const measured = await load();
  const { profile } = (await session.post('Profiler.stop')) as { profile: { nodes: ProfileNode[] } };
  const servers = cpuBetween(serversBefore, sampleCpu());
  const threads = threadCpuBetween(threadsBefore, sampleThreadCpu());
  session.disconnect();
  return { measured, profile, servers, threads };
}

async function main(mode: Mode) {
  const service = await startEmbeddedService('profile', {
    ALLOW_PRIVATE_INPUT_URLS: 'true',
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  });
  const { api, prisma, stops } = service;
  try {
    const inputs = await startInputs(stops);
    const webhooks = await startWebhookReceiver(stops);
    const { headers, ids, create, drain } = await startUpscaleClient(service, inputs.url, 'profile', webhooks);
    const read = async (i: number) => {
      const response = await fetch(`${api}/generations/${ids[i % ids.length]}`, { headers });
      if (response.status !== 200) throw new Error(`GET answered ${response.status}`);
      await response.arrayBuffer();
    };
    // Warm-up: connections, the worker's workflow bundle, the JIT.
    await closedLoop(4, { total: 40 }, async (i) => {
      await create(`warm-${i}`);
    });
    await drain();
    await closedLoop(16, { forSeconds: 2 }, read);

    // Every statement outside a transaction commits on its own: the database round trips behind each request.
    const commits = async () =>
      Number(
        (
          await prisma.$queryRaw<{ commits: bigint }[]>`
            SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = current_database()`
        )[0]!.commits,
      );
    const commitsBefore = await commits();
    const { measured, profile, servers, threads } = await profiled(async () => {
      if (mode === 'reads') return closedLoop(16, { forSeconds: 10 }, read);
      const admitted = await openLoop(10, 10, async (i) => {
        await create(`profile-${i}`);
      });
      await drain();
      return admitted;
    });

    const transactions = (await commits()) - commitsBefore;
    const byBucket = new Map<string, number>();
    const byFunction = new Map<string, number>();
    let total = 0;
    for (const node of profile.nodes) {
      const hits = node.hitCount ?? 0;
      if (hits === 0) continue;
      total += hits;
      const { url, functionName, lineNumber } = node.callFrame;
      const bucket = bucketOf(url, functionName);
      byBucket.set(bucket, (byBucket.get(bucket) ?? 0) + hits);
      const name = `${functionName || '(anonymous)'} ${bucket}${url ? `:${lineNumber + 1}` : ''}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
    }
    const count = measured.latencies.length;
    const per = (ms: number) => `${(ms / count).toFixed(1).padStart(6)} ms`;
    const what =
      mode === 'reads'
        ? 'GET /generations/{id} of a finished task, 16 in flight, 10 s'
        : 'POST /generations (local/lanczos, 8×8 PNG) open loop at 10/s for 10 s, each task run to the end';
    console.log(
      `\n${what}: ${count} requests, ${achievedRate(measured).toFixed(0)}/s, ` +
        `p50 ${percentile(measured.latencies, 50).toFixed(1)} ms, p99 ${percentile(measured.latencies, 99).toFixed(1)} ms` +
        ` (client in this process); ${(transactions / count).toFixed(1)} database transactions per request` +
        `\n\nCPU per request:\n` +
        [
          ...threads.slice(0, 12).map(([name, ms]) => `  ${per(ms)}  this process: ${name}`),
          `  ${per(servers.temporalMs)}  Temporal dev server`,
          `  ${per(servers.postgresMs)}  PostgreSQL`,
        ].join('\n') +
        `\n\nMain thread self time by package or file:\n${topOf(byBucket, total, 20).join('\n')}` +
        `\n\nMain thread self time by function:\n${topOf(byFunction, total, 25).join('\n')}`,
    );
  } finally {
    await service.stop();
  }
  process.exit(0);
}

const mode = process.argv[2] ?? 'reads';
if (mode !== 'reads' && mode !== 'admissions') {
  console.error('usage: npx tsx bench/profile.ts reads|admissions');
  process.exit(2);
}
await main(mode);

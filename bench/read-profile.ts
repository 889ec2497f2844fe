// `npx tsx bench/read-profile.ts`: where a read of a finished task spends the process's CPU. Starts the embedded
// default like the benchmark, finishes a few tasks, then profiles `GET /generations/{id}` with 16 in flight for
// 10 s (V8's sampling profiler, this process only) and prints self time by package or source file and by function.
import { Session } from 'node:inspector/promises';
import { createDeveloper } from '../src/services/accounts.ts';
import { credit } from '../src/services/ledger.ts';
import { achievedRate, closedLoop, percentile, sleep } from './load.ts';
import { startEmbeddedService } from './embedded-service.ts';

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

async function main() {
  const service = await startEmbeddedService('profile');
  const { api, prisma } = service;
  try {
    const { developerId, apiKey } = await createDeveloper(prisma, { name: 'profile', tier: 'enterprise' });
    await credit(prisma, {
      accountId: developerId,
      amount: 10_000_000n,
      kind: 'adjustment',
      idempotencyKey: 'profile',
    });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey.key}` };
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) {
      const response = await fetch(`${api}/generations`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ type: 'text-to-audio', model: 'local/espeak', prompt: `Profile ${i}.` }),
      });
      ids.push(((await response.json()) as { id: string }).id);
    }
    while ((await prisma.task.count({ where: { id: { in: ids }, status: 'completed' } })) < ids.length)
      await sleep(100);
    const read = async (i: number) => {
      const response = await fetch(`${api}/generations/${ids[i % ids.length]}`, { headers });
      if (response.status !== 200) throw new Error(`GET answered ${response.status}`);
      await response.arrayBuffer();
    };
    await closedLoop(16, { forSeconds: 2 }, read); // warm-up

    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    const measured = await closedLoop(16, { forSeconds: 10 }, read);
    const { profile } = (await session.post('Profiler.stop')) as { profile: { nodes: ProfileNode[] } };
    session.disconnect();

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
    console.log(
      `\nGET /generations/{id} of a finished task, 16 in flight, 10 s: ${achievedRate(measured).toFixed(0)}/s, ` +
        `p50 ${percentile(measured.latencies, 50).toFixed(1)} ms, p99 ${percentile(measured.latencies, 99).toFixed(1)} ms` +
        ` (client in this process)\n\nSelf time by package or file:\n${topOf(byBucket, total, 20).join('\n')}` +
        `\n\nSelf time by function:\n${topOf(byFunction, total, 25).join('\n')}`,
    );
  } finally {
    await service.stop();
  }
  process.exit(0);
}

await main();

// How soon a task's `completed` event reaches an event-stream client after the task completed: the time from the
// task row's completed_at (written in the transaction that completes it, just before its commit) to the event's
// arrival, over BENCH_EVENT_TASKS (100) local upscales on the embedded service, through both streams at once: one
// GET /events for the account and a GET /generations/{id}/events opened per task right after its POST. The path
// measured is the trigger's insert and pg_notify, the api's LISTEN connection, the stream's re-read and the write.
// Run: npx tsx bench/events-latency.bench.ts (prints one table).
import { startEmbeddedService } from './embedded-service.ts';
import { startInputs } from './inputs.ts';
import { percentile, sleep } from './load.ts';
import { startUpscaleClient } from './upscale-client.ts';

const tasks = Number(process.env.BENCH_EVENT_TASKS ?? 100);
// A few tasks in flight, as a busy account has: the account stream then interleaves their events.
const concurrency = 4;

/** Reads an event stream, calling `onEvent` with each event and the time it arrived; resolves when it closes. */
async function readStream(
  url: string,
  headers: Record<string, string>,
  onEvent: (event: { type: string; data: any }, at: number) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal });
  if (response.status !== 200 || !response.body) throw new Error(`${url} answered ${response.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body) {
      const at = Date.now();
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const lines = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        const type = lines.find((line) => line.startsWith('event: '))?.slice(7);
        const data = lines.find((line) => line.startsWith('data: '))?.slice(6);
        if (type && data) onEvent({ type, data: JSON.parse(data) }, at);
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

const summary = (name: string, values: number[]) =>
  `${name.padEnd(34)} ${String(values.length).padStart(5)} ${[50, 90, 99]
    .map((p) => `${percentile(values, p).toFixed(0).padStart(6)} ms`)
    .join(' ')} ${Math.max(...values)
    .toFixed(0)
    .padStart(6)} ms`;

async function main() {
  const service = await startEmbeddedService('events', { ALLOW_PRIVATE_INPUT_URLS: 'true', LOG_LEVEL: 'error' });
  const { api, prisma, stops } = service;
  const stop = new AbortController();
  try {
    const inputs = await startInputs(stops);
    const client = await startUpscaleClient(service, inputs.url, 'events');
    for (let i = 0; i < 5; i++) await client.create(`warm-${i}`);
    await client.drain();

    const accountArrivals = new Map<string, number>();
    const taskArrivals = new Map<string, number>();
    const account = readStream(
      `${api}/events`,
      client.headers,
      (event, at) => {
        if (event.type === 'completed') accountArrivals.set(event.data.id, at);
      },
      stop.signal,
    );
    await sleep(200);

    const ids: string[] = [];
    const taskStreams: Promise<void>[] = [];
    let next = 0;
    const worker = async () => {
      while (next < tasks) {
        next += 1;
        const id = await client.create(`task-${next}`);
        ids.push(id);
        const stream = readStream(
          `${api}/generations/${id}/events`,
          client.headers,
          (event, at) => {
            if (event.type === 'completed') taskArrivals.set(id, at);
          },
          stop.signal,
        );
        taskStreams.push(stream);
        // The next task of this worker starts once this one has ended, so `concurrency` are in flight.
        await stream;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    await client.drain();
    const deadline = Date.now() + 10_000;
    while (ids.some((id) => !accountArrivals.has(id)) && Date.now() < deadline) await sleep(50);

    const rows = await prisma.task.findMany({ where: { id: { in: ids } }, select: { id: true, completedAt: true } });
    const completedAt = new Map(rows.map((row) => [row.id, row.completedAt!.getTime()]));
    const latencies = (arrivals: Map<string, number>) =>
      ids.filter((id) => arrivals.has(id)).map((id) => arrivals.get(id)! - completedAt.get(id)!);
    console.log(
      `completed_at → 'completed' event at the client, ${tasks} local/lanczos upscales, ${concurrency} in flight`,
    );
    console.log(
      `${'stream'.padEnd(34)} ${'tasks'.padStart(5)} ${['p50', 'p90', 'p99', 'max'].map((p) => p.padStart(9)).join(' ')}`,
    );
    console.log(summary('GET /generations/{id}/events', latencies(taskArrivals)));
    console.log(summary('GET /events (the account)', latencies(accountArrivals)));
    const missing = ids.filter((id) => !accountArrivals.has(id) || !taskArrivals.has(id));
    if (missing.length > 0) console.log(`missing completed events: ${missing.join(', ')}`);
    stop.abort();
    await Promise.allSettled([account, ...taskStreams]);
  } finally {
    stop.abort();
    await service.stop();
  }
}

await main();
process.exit(0);

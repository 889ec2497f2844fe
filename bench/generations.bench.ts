// `npm run bench`: the embedded default (embedded PostgreSQL, Temporal dev server, API and worker in one process)
// in a scratch data directory, loaded from this same process, so client and server share the machine's cores.
// Latency targets are measured open loop at a fixed offered rate, saturation closed loop; two references are
// measured the same way: an Express hello-world route in this process and the server's bare update-with-start.
// Every task carries a webhook, as users' do, to a receiver in this process, and a phase ends once its webhooks
// have arrived; one more phase at the cost rate posts without, to show what the webhook costs.
// Prints one table and exits. BENCH_PHASE_SECONDS (default 20) sets how long each open-loop phase offers load;
// BENCH_SERVICE_NODE_OPTIONS, the service process's NODE_OPTIONS.
// `--cluster`: the same table on `npm run cluster`'s layout (bench/cluster-service.ts), requests through Caddy.
// `--cost`: only the cost rows (the two phases at the cost rate), `--cost=N` N times over: a quick before and after.
import { createServer } from 'node:http';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import express from 'express';
import { echoUpdate, type echoWorkflow } from '../workflows/echo.workflow.ts';
import { achievedRate, closedLoop, type Measured, openLoop, sleep } from './load.ts';
import type { Stop } from '../src/infra/processes/stops.ts';
import { startClusterService } from './cluster-service.ts';
import { startNpmStartService } from './npm-start-service.ts';
import { startInputs } from './inputs.ts';
import { startUpscaleClient } from './upscale-client.ts';
import { depositRow, x402Rows } from './payment-rows.ts';
import { historyCost, writeTransactions } from './task-cost.ts';
import { threadCpuBetween } from './thread-cpu.ts';
import { formatTable, loadRow, type Row, withTarget } from './table.ts';
import { listenLocally } from '../harness/local-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

const phaseSeconds = Number(process.env.BENCH_PHASE_SECONDS ?? 20);
const saturationSeconds = Math.max(3, phaseSeconds / 4);
const inFlight = 16;
const admissionRates = [10, 20, 30, 45];
const overloadRate = 45;
// What a task costs is measured at a rate the service keeps up with: a backlog would batch the work.
const costRate = 20;
// Processes that run beside the service but do nothing for a task: the load generator and the local chain.
const notServing = ['this client', 'local chain'];
/** The cost phases at costRate: tasks with a webhook each (what users run), and without, to see what it adds. */
const withWebhook = { name: 'with a webhook per task', cpuTarget: 50, cpuBefore: 157 };
const withoutWebhook = { name: 'without a webhook', cpuTarget: 45, cpuBefore: 93 };
type CostVariant = typeof withWebhook;
const endToEndRate = 10;
const finishedReadRate = 200;
const runningReadRate = 100;

const costArgument = process.argv.find((argument) => argument.startsWith('--cost'));
const costRounds = costArgument ? Number(costArgument.split('=')[1] ?? 1) : 0;

const ratio = (value: number, reference: number) => `${(value / reference).toFixed(2)} ×`;

/** The same client against an Express route that only answers: what this process can serve at all. */
async function helloWorld(stops: Stop[]): Promise<Measured> {
  const app = express();
  app.get('/hello', (_req, res) => {
    res.json({ hello: 'world' });
  });
  const server = createServer(app);
  const { url: base } = await listenLocally(server);
  stops.push({ name: 'hello world', stop: () => new Promise((resolve) => server.close(resolve)) });
  const url = `${base}/hello`;
  return closedLoop(inFlight, { forSeconds: saturationSeconds }, async () => {
    const response = await fetch(url);
    await response.arrayBuffer();
  });
}

type Service = Awaited<ReturnType<typeof startNpmStartService>>;

/** What every phase works with: the service, its upscale client and their webhooks' receiver, the table so far. */
interface Bench {
  service: Service;
  upscales: Awaited<ReturnType<typeof startUpscaleClient>>;
  webhooks: WebhookReceiver;
  rows: Row[];
}

const progress = (line: string) => console.error(`[bench] ${line}`);

/** The two references, and a Temporal client on the service's server for the echo and the histories. */
async function references({ service, rows }: Bench) {
  progress('references: hello world, update-with-start echo');
  const hello = await helloWorld(service.stops);
  rows.push(loadRow('Express hello-world route, this process (reference)', `${inFlight} in flight`, hello));
  const connection = await Connection.connect({ address: service.temporalAddress });
  service.stops.push({ name: 'bench temporal connection', stop: () => connection.close() });
  const client = new Client({ connection, namespace: service.config.temporal.namespace });
  const echo = async (i: number) => {
    const start = new WithStartWorkflowOperation<typeof echoWorkflow>('echoWorkflow', {
      workflowId: `echo-${i}-${Date.now()}`,
      taskQueue: service.config.temporal.taskQueue,
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    await client.workflow.executeUpdateWithStart(echoUpdate, { args: ['ping'], startWorkflowOperation: start });
  };
  await closedLoop(inFlight, { total: 50 }, echo); // warm-up
  const echoes = await closedLoop(inFlight, { forSeconds: saturationSeconds }, echo);
  rows.push(loadRow('update-with-start echo, same server (reference)', `${inFlight} in flight`, echoes));
  return { client, helloRate: achievedRate(hello), echoRate: achievedRate(echoes) };
}

async function saturation({ upscales, rows }: Bench, echoRate: number) {
  progress('admissions at saturation');
  const saturated = await closedLoop(inFlight, { forSeconds: saturationSeconds }, async (i) => {
    await upscales.create(`saturation-${i}`);
  });
  await upscales.drain();
  const saturationRate = achievedRate(saturated);
  const row = loadRow(
    'POST /generations (admission) at saturation',
    `${inFlight} in flight`,
    saturated,
    `, ${ratio(saturationRate, echoRate)} echo`,
  );
  const target = '≥ 40/s and ≥ 0.45 × echo (issue 41 before: 27.4/s, 0.37 ×)';
  rows.push(withTarget(row, target, saturationRate >= 40 && saturationRate >= 0.45 * echoRate));
}

interface CostPhase {
  cpuBefore: Record<string, number>;
  threadsBefore?: Map<string, number>;
  xidsBefore: bigint;
  firstTask: number;
  tasks: number;
}

/** What a task costs in CPU per process, write transactions and history, over one open-loop phase's tasks. */
async function costRows({ service, upscales, rows }: Bench, client: Client, phase: CostPhase, variant: CostVariant) {
  const cpuAfter = service.sampleCpu();
  const writes = Number((await writeTransactions(service.prisma)) - phase.xidsBefore - 1n);
  const perTask = (kind: string) => (cpuAfter[kind]! - phase.cpuBefore[kind]!) / phase.tasks;
  const serving = Object.keys(cpuAfter).filter((kind) => !notServing.includes(kind));
  const total = serving.reduce((ms, kind) => ms + perTask(kind), 0);
  const byProcess = Object.keys(cpuAfter)
    .map((kind) => `${kind} ${perTask(kind).toFixed(1)}`)
    .join(', ');
  const cpu = { name: `CPU per task, ${variant.name}`, offered: `${costRate}/s`, requests: phase.tasks };
  rows.push(
    withTarget(
      { ...cpu, result: `${total.toFixed(1)} ms: ${byProcess}` },
      `≤ ${variant.cpuTarget} ms, ${notServing.join(' and ')} aside (issue 41 before: ${variant.cpuBefore})`,
      total <= variant.cpuTarget,
    ),
  );
  const threads = phase.threadsBefore && threadCpuBetween(phase.threadsBefore, service.sampleThreads!());
  if (threads) {
    const result = threads
      .filter(([, ms]) => ms / phase.tasks >= 0.1)
      .map(([name, ms]) => `${name} ${(ms / phase.tasks).toFixed(1)}`)
      .join(', ');
    rows.push({
      name: `Service threads per task, ${variant.name} (ms)`,
      offered: `${costRate}/s`,
      requests: phase.tasks,
      result,
    });
  }
  const history = await historyCost(client, upscales.ids.slice(phase.firstTask));
  const writesPerTask = writes / phase.tasks;
  const result =
    `${writesPerTask.toFixed(1)} write transactions; ` +
    `${history.events.toFixed(1)} history events, ${history.workflowTasks.toFixed(1)} workflow tasks ` +
    `(${history.sampled} histories)`;
  const name = `Round trips per task, ${variant.name} (PostgreSQL write transactions; workflow history)`;
  rows.push(
    withTarget(
      { name, offered: `${costRate}/s`, requests: phase.tasks, result },
      'fewer than issue 28 found: 9.6 transactions',
      writesPerTask < 9.6,
    ),
  );
}

/** One open-loop phase of admissions at `rate`, drained (webhooks delivered too); what the cost rows need of it. */
async function admissionPhase({ service, upscales }: Bench, rate: number, webhook: boolean) {
  const cpuBefore = service.sampleCpu();
  const threadsBefore = service.sampleThreads?.();
  const [xidsBefore, firstTask] = [await writeTransactions(service.prisma), upscales.ids.length];
  const admitted = await openLoop(rate, phaseSeconds, async (i) => {
    await upscales.create(`in-${rate}-${webhook ? 'webhook' : 'bare'}-${i}`, { webhook });
  });
  await upscales.drain();
  const cost: CostPhase = { cpuBefore, threadsBefore, xidsBefore, firstTask, tasks: admitted.latencies.length };
  return { admitted, cost };
}

/** The cost rate again with tasks that carry no webhook; its admission row shows whether it kept up. */
async function withoutWebhooks(bench: Bench, client: Client) {
  progress(`admissions at ${costRate}/s without webhooks`);
  const { admitted, cost } = await admissionPhase(bench, costRate, false);
  bench.rows.push(loadRow('POST /generations (admission, 202), without a webhook', costRate, admitted));
  await costRows(bench, client, cost, withoutWebhook);
}

async function admissions(bench: Bench, client: Client, echoRate: number) {
  for (const rate of admissionRates) {
    // Saturation before the rate past it: an overload leaves work behind in Temporal that would weigh on it.
    if (rate === overloadRate) await saturation(bench, echoRate);
    progress(`admissions at ${rate}/s`);
    const { admitted, cost } = await admissionPhase(bench, rate, true);
    const row = loadRow('POST /generations (admission, 202)', rate, admitted);
    bench.rows.push(rate === 20 ? withTarget(row, 'p99 ≤ 50 ms (issue 41 before: 444)', row.p99! <= 50) : row);
    if (rate !== costRate) continue;
    await costRows(bench, client, cost, withWebhook);
    await withoutWebhooks(bench, client);
  }
}

/** The cost phases alone, with a webhook and without (`--cost`). */
async function costPhases(bench: Bench) {
  const connection = await Connection.connect({ address: bench.service.temporalAddress });
  const client = new Client({ connection, namespace: bench.service.config.temporal.namespace });
  try {
    progress(`admissions at ${costRate}/s`);
    const { admitted, cost } = await admissionPhase(bench, costRate, true);
    bench.rows.push(loadRow('POST /generations (admission, 202)', costRate, admitted));
    await costRows(bench, client, cost, withWebhook);
    await withoutWebhooks(bench, client);
  } finally {
    await client.connection.close();
  }
}

/** Open loop from POST to completed and to its webhook received; returns the tasks, finished, for the reads. */
async function endToEnd({ service, upscales, webhooks, rows }: Bench): Promise<string[]> {
  progress(`end to end at ${endToEndRate}/s`);
  const postedAt = new Map<string, number>();
  const endToEndIds: string[] = [];
  const posted = await openLoop(endToEndRate, phaseSeconds, async (i) => {
    const at = Date.now();
    const id = await upscales.create(`e2e-${i}`);
    postedAt.set(id, at);
    endToEndIds.push(id);
  });
  const lastPost = Date.now();
  const backlog = await service.prisma.task.count({
    where: { id: { in: endToEndIds }, status: { in: ['queued', 'processing'] } },
  });
  const drainedMs = await upscales.drain();
  const ended = await service.prisma.task.findMany({
    where: { id: { in: endToEndIds } },
    select: { id: true, completedAt: true },
  });
  const latencies = ended.map((task) => task.completedAt!.getTime() - postedAt.get(task.id)!);
  const lastCompletion = Math.max(...ended.map((task) => task.completedAt!.getTime()));
  const row = loadRow(
    'POST → completed (local/lanczos, 8×8 PNG, end to end)',
    endToEndRate,
    { ...posted, latencies },
    `; ${backlog} open when posting stopped, last done ${Math.max(0, lastCompletion - lastPost)} ms after`,
  );
  rows.push(withTarget(row, 'p50 ≤ 250 ms, no backlog', row.p50! <= 250 && drainedMs < 2_000));
  // Drained: every task's webhook has arrived.
  const webhookLatencies = endToEndIds.map((id) => webhooks.deliveredAt(id)! - postedAt.get(id)!);
  rows.push(loadRow('POST → webhook received (end to end)', endToEndRate, { ...posted, latencies: webhookLatencies }));
  return endToEndIds;
}

const reader =
  ({ service, upscales }: Bench, taskIds: string[]) =>
  async (i: number) => {
    const response = await fetch(`${service.api}/generations/${taskIds[i % taskIds.length]}`, {
      headers: upscales.headers,
    });
    if (response.status !== 200) throw new Error(`GET answered ${response.status}`);
    await response.arrayBuffer();
  };

async function finishedReads(bench: Bench, finished: string[], helloRate: number) {
  progress('reads of finished tasks');
  const atRate = await openLoop(finishedReadRate, phaseSeconds / 2, reader(bench, finished));
  const row = loadRow('GET /generations/{id} (finished)', finishedReadRate, atRate);
  bench.rows.push(withTarget(row, 'p99 ≤ 20 ms', row.p99! <= 20));
  const saturated = await closedLoop(inFlight, { forSeconds: saturationSeconds }, reader(bench, finished));
  const rate = achievedRate(saturated);
  const name = 'GET /generations/{id} (finished) at saturation';
  const saturatedRow = loadRow(name, `${inFlight} in flight`, saturated, `, ${ratio(rate, helloRate)} hello world`);
  bench.rows.push(withTarget(saturatedRow, '≥ 0.5 × hello world', rate >= 0.5 * helloRate));
}

/** Reads of tasks held processing (the inputs server holds their downloads until released). */
async function runningReads(bench: Bench, inputs: { release(): void }) {
  const { service, upscales, rows } = bench;
  progress('reads of running tasks');
  const running: string[] = [];
  for (let i = 0; i < inFlight; i++) running.push(await upscales.create(`held-${i}`));
  while ((await service.prisma.task.count({ where: { id: { in: running }, status: 'processing' } })) < running.length)
    await sleep(100);
  const atRate = await openLoop(runningReadRate, phaseSeconds / 2, reader(bench, running));
  const row = loadRow('GET /generations/{id} (running)', runningReadRate, atRate);
  rows.push(withTarget(row, 'p99 ≤ 50 ms', row.p99! <= 50));
  const saturated = await closedLoop(inFlight, { forSeconds: saturationSeconds }, reader(bench, running));
  rows.push(loadRow('GET /generations/{id} (running) at saturation', `${inFlight} in flight`, saturated));
  inputs.release();
  await upscales.drain();
}

function peakRssRows({ service, upscales, rows }: Bench) {
  for (const [what, peakMb] of service.peakRss()) {
    const tasks = upscales.ids.length;
    const row = {
      name: `peak RSS of ${what}`,
      offered: '',
      requests: 0,
      result: `${peakMb.toFixed(0)} MB after ${tasks} tasks`,
    };
    const target = '≤ 400 MB after 2,000 tasks (issue 41 before: 824 MB)';
    rows.push(withTarget(row, target, peakMb <= 400 && tasks >= 2_000));
  }
}

/** The line under the table: what the receiver got, duplicates being a webhook-id it had had already. */
const receiverTotals = (webhooks: WebhookReceiver) =>
  `Webhook receiver: ${webhooks.delivered} deliveries for ${webhooks.tasks} tasks, ${webhooks.duplicates} duplicates`;

async function main() {
  const env = {
    ALLOW_PRIVATE_INPUT_URLS: 'true',
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    X402_ENABLED: 'true',
    // E.g. `--heapsnapshot-signal=SIGUSR2` or a `--require` of a profiler preload (Node refuses `--cpu-prof` there).
    ...(process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {}),
  };
  const service = process.argv.includes('--cluster')
    ? await startClusterService('bench', env)
    : await startNpmStartService('bench', env);
  const rows: Row[] = [];
  let totals: string;
  try {
    const inputs = await startInputs(service.stops);
    const webhooks = await startWebhookReceiver(service.stops);
    const upscales = await startUpscaleClient(service, inputs.url, 'bench', webhooks);
    const bench: Bench = { service, upscales, webhooks, rows };
    // Warm-up, before the references too: the first requests pay for connections and the worker's workflow bundle
    // (made in a child process, whose CPU would otherwise weigh on the references).
    for (let i = 0; i < 10; i++) await upscales.create(`warm-${i}`);
    await upscales.drain();
    if (costRounds > 0) {
      for (let round = 0; round < costRounds; round++) await costPhases(bench);
    } else {
      const { client, helloRate, echoRate } = await references(bench);
      await admissions(bench, client, echoRate);
      const finished = await endToEnd(bench);
      await finishedReads(bench, finished, helloRate);
      await runningReads(bench, inputs);
      progress('deposits and x402');
      rows.push(await depositRow(service.api, service.dataDir, service.config.chains.local.confirmations));
      const paidUpscale = { type: 'upscale', model: 'local/lanczos', image_url: `${inputs.url}/paid.png` };
      rows.push(...(await x402Rows(service.api, service.dataDir, paidUpscale)));
    }
    peakRssRows(bench);
    totals = receiverTotals(webhooks);
  } finally {
    await service.stop();
  }
  console.log(
    `\nGeneration gateway benchmark: ${service.layout}, local/lanczos upscales of an ` +
      `8×8 PNG; open-loop phases of ${phaseSeconds} s, saturation ${saturationSeconds} s with ${inFlight} in flight\n`,
  );
  console.log(formatTable(rows));
  console.log(`\n${totals}`);
  process.exit(0);
}

await main();

// `npm run bench`: the embedded default (embedded PostgreSQL, Temporal dev server, API and worker in one process)
// in a scratch data directory, loaded from this same process, so client and server share the machine's cores.
// Prints one table and exits. The echo row is the same server's rate for a bare update-with-start: the ceiling
// that Temporal itself sets here.
import { createServer } from 'node:http';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import sharp from 'sharp';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadCatalog } from '../src/catalog/catalog.ts';
import { sendTestUsdc } from '../src/chain/local-chain.ts';
import { embeddedDatabaseUrl, loadConfig } from '../src/config.ts';
import { createPrisma } from '../src/db/prisma.ts';
import { createLogger } from '../src/logger.ts';
import { createDeveloper } from '../src/services/accounts.ts';
import { credit } from '../src/services/ledger.ts';
import { startRuntime, type Stop, stopAll } from '../src/runtime.ts';
import { freePort } from '../test/helpers/ports.ts';
import { pay } from '../test/x402/paying-client.ts';
import { echoUpdate, type echoWorkflow } from '../workflows/echo.workflow.ts';

const concurrency = 16;
const admissions = 300;
const readSeconds = 3;
const deposits = 20;
// x402 rows: 50 requests each, offered open-loop at a fixed rate (one every `x402IntervalMs`), one payer per payment.
const x402Requests = 50;
const x402IntervalMs = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

interface Row {
  name: string;
  count: number;
  perSecond: number;
  p50: number;
  p99: number;
}

function row(name: string, latencies: number[], seconds: number): Row {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    name,
    count: sorted.length,
    perSecond: sorted.length / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

/** Runs `operation` `total` times (or for `forMs`) with `concurrency` in flight; latencies in ms. */
async function load(operation: (i: number) => Promise<void>, limit: { total?: number; forMs?: number }) {
  const latencies: number[] = [];
  const started = performance.now();
  let next = 0;
  const more = () => (limit.total !== undefined ? next < limit.total : performance.now() - started < limit.forMs!);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (more()) {
        const i = next++;
        const t = performance.now();
        await operation(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

/** One agent, `deposits` USDC transfers on the local chain, each from POST /agents/deposit to its credit. */
async function depositsToCredit(api: string, dataDir: string, confirmations: number): Promise<Row> {
  const chain = JSON.parse(await readFile(join(dataDir, 'anvil', 'chain.json'), 'utf8')) as {
    rpcUrl: string;
    usdcAddress: `0x${string}`;
    chain: string;
  };
  const json = { 'content-type': 'application/json' };
  const registered = await fetch(`${api}/agents/register`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ agent_name: 'bench agent' }),
  });
  const agent = (await registered.json()) as { api_key: string; deposit_addresses: Record<string, `0x${string}`> };
  const headers = { ...json, authorization: `Bearer ${agent.api_key}` };
  const to = agent.deposit_addresses[chain.chain];
  if (!to) throw new Error(`the agent has no deposit address on ${chain.chain}`);
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < deposits; i++) {
    const txHash = await sendTestUsdc({ rpcUrl: chain.rpcUrl, usdcAddress: chain.usdcAddress, to, amount: 1_000_000n });
    const t = performance.now();
    const answer = await fetch(`${api}/agents/deposit`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ chain: chain.chain, tx_hash: txHash }),
    });
    let credited = ((await answer.json()) as { success?: boolean }).success === true;
    while (!credited) {
      await sleep(50);
      const balance = await (await fetch(`${api}/agents/balance`, { headers })).json();
      const recent = (balance as { recent_deposits: { tx_hash: string; status: string }[] }).recent_deposits;
      credited = recent.some((deposit) => deposit.tx_hash === txHash && deposit.status === 'credited');
    }
    latencies.push(performance.now() - t);
  }
  const name = `POST /agents/deposit → credited (local chain, ${confirmations} confirmations)`;
  return row(name, latencies, (performance.now() - started) / 1000);
}

/** Starts `operation(i)` every `intervalMs` whether or not earlier ones have answered (open loop); latencies in ms. */
async function atFixedRate(count: number, intervalMs: number, operation: (i: number) => Promise<void>) {
  const started = performance.now();
  const latencies = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await sleep(started + i * intervalMs - performance.now());
      const t = performance.now();
      await operation(i);
      return performance.now() - t;
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

/** The unpaid 402 and a paid admission (202), each at 1000 / x402IntervalMs requests per second. */
async function x402Rows(api: string, dataDir: string): Promise<Row[]> {
  const chain = JSON.parse(await readFile(join(dataDir, 'anvil', 'chain.json'), 'utf8')) as {
    rpcUrl: string;
    usdcAddress: `0x${string}`;
  };
  const json = { 'content-type': 'application/json' };
  const body = JSON.stringify({ type: 'text-to-audio', model: 'local/espeak', prompt: 'A paid benchmark.' });
  const unpaid = async () => {
    const response = await fetch(`${api}/generations`, { method: 'POST', headers: json, body });
    if (response.status !== 402) throw new Error(`unpaid POST answered ${response.status}`);
    return (await response.json()) as { requirements: PaymentRequired };
  };
  const unpaidRuns = await atFixedRate(x402Requests, x402IntervalMs, async () => {
    await unpaid();
  });
  // Payments are signed beforehand, one fresh payer each: only the POST that carries one is timed.
  const { requirements } = await unpaid();
  const headers: Record<string, string>[] = [];
  for (let i = 0; i < x402Requests; i++) {
    const payer = privateKeyToAccount(generatePrivateKey());
    await sendTestUsdc({ rpcUrl: chain.rpcUrl, usdcAddress: chain.usdcAddress, to: payer.address, amount: 1_000_000n });
    headers.push({
      ...json,
      'PAYMENT-SIGNATURE': encodePaymentSignatureHeader((await pay(requirements, payer)).payload),
    });
  }
  const paidRuns = await atFixedRate(x402Requests, x402IntervalMs, async (i) => {
    const response = await fetch(`${api}/generations`, { method: 'POST', headers: headers[i], body });
    if (response.status !== 202) throw new Error(`paid POST answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  });
  const rate = `${1000 / x402IntervalMs}/s offered`;
  return [
    row(`POST /generations without a key (x402 402, ${rate})`, unpaidRuns.latencies, unpaidRuns.seconds),
    row(`POST /generations with an x402 payment (verify + admit, ${rate})`, paidRuns.latencies, paidRuns.seconds),
  ];
}

async function main() {
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-bench-'));
  await chmod(dataDir, 0o755);
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
      TEMPORAL_DEV_SERVER_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
      ALLOW_PRIVATE_INPUT_URLS: 'true',
      X402_ENABLED: 'true',
      LOG_LEVEL: 'error',
    },
    [],
  );
  const logger = createLogger(config);
  const stops: Stop[] = [];
  const rows: Row[] = [];
  try {
    await startRuntime(config, loadCatalog(), logger, stops);
    const api = `http://127.0.0.1:${config.PORT}/api/v1`;
    const prisma = createPrisma(embeddedDatabaseUrl(config));
    stops.push({ name: 'bench database pool', stop: () => prisma.$disconnect() });

    // Inputs: an 8×8 PNG at once, or after 20 s (keeps tasks running for the "running" reads).
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    const inputs = createServer((req, res) => {
      const send = () => res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      if (req.url?.startsWith('/slow')) setTimeout(send, 20_000);
      else send();
    });
    await new Promise<void>((resolve) => inputs.listen(0, '127.0.0.1', resolve));
    stops.push({
      name: 'bench inputs',
      stop: () =>
        new Promise((resolve) => {
          inputs.closeAllConnections();
          inputs.close(resolve);
        }),
    });
    const inputsUrl = `http://127.0.0.1:${(inputs.address() as AddressInfo).port}`;

    const { developerId, apiKey } = await createDeveloper(prisma, { name: 'bench', tier: 'enterprise' });
    await credit(prisma, {
      accountId: developerId,
      amount: 1_000_000_000n,
      kind: 'adjustment',
      idempotencyKey: `bench:${developerId}`,
    });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey.key}` };
    const create = async (imageUrl: string) => {
      const response = await fetch(`${api}/generations`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ type: 'upscale', model: 'local/lanczos', image_url: imageUrl }),
      });
      if (response.status !== 202)
        throw new Error(`POST /generations answered ${response.status}: ${await response.text()}`);
      return ((await response.json()) as { id: string }).id;
    };

    // Warm-up: the first requests pay for connections and the worker's workflow bundle.
    for (let i = 0; i < 5; i++) await create(`${inputsUrl}/warm-${i}.png`);

    const ids: string[] = [];
    const admitted = await load(
      async (i) => {
        ids.push(await create(`${inputsUrl}/in-${i}.png`));
      },
      { total: admissions },
    );
    rows.push(row('POST /generations (admission, 202)', admitted.latencies, admitted.seconds));

    const deadline = Date.now() + 300_000;
    while (
      (await prisma.task.count({ where: { id: { in: ids }, status: { in: ['completed', 'failed'] } } })) < ids.length
    ) {
      if (Date.now() > deadline) throw new Error('tasks did not finish within 5 minutes');
      await sleep(200);
    }
    const tasks = await prisma.task.findMany({
      where: { id: { in: ids } },
      select: { status: true, createdAt: true, completedAt: true },
    });
    const failed = tasks.filter((task) => task.status !== 'completed').length;
    if (failed > 0) throw new Error(`${failed} benchmark tasks failed`);
    const endToEnd = tasks.map((task) => task.completedAt!.getTime() - task.createdAt.getTime());
    const span =
      (Math.max(...tasks.map((task) => task.completedAt!.getTime())) -
        Math.min(...tasks.map((task) => task.createdAt.getTime()))) /
      1000;
    rows.push(row('POST → completed (end to end)', endToEnd, span));

    const readAll = (taskIds: string[]) =>
      load(
        async (i) => {
          const response = await fetch(`${api}/generations/${taskIds[i % taskIds.length]}`, { headers });
          if (response.status !== 200) throw new Error(`GET answered ${response.status}`);
          await response.arrayBuffer();
        },
        { forMs: readSeconds * 1000 },
      );
    const finishedReads = await readAll(ids);
    rows.push(row('GET /generations/{id} (finished: database)', finishedReads.latencies, finishedReads.seconds));

    const running: string[] = [];
    for (let i = 0; i < concurrency; i++) running.push(await create(`${inputsUrl}/slow-${i}.png`));
    while ((await prisma.task.count({ where: { id: { in: running }, status: 'processing' } })) < running.length)
      await sleep(100);
    const runningReads = await readAll(running);
    rows.push(row('GET /generations/{id} (running: workflow query)', runningReads.latencies, runningReads.seconds));

    const connection = await Connection.connect({ address: `127.0.0.1:${config.TEMPORAL_DEV_SERVER_PORT}` });
    stops.push({ name: 'bench temporal connection', stop: () => connection.close() });
    const client = new Client({ connection });
    const echoes = await load(
      async (i) => {
        const start = new WithStartWorkflowOperation<typeof echoWorkflow>('echoWorkflow', {
          workflowId: `echo-${i}`,
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          workflowIdConflictPolicy: 'USE_EXISTING',
        });
        await client.workflow.executeUpdateWithStart(echoUpdate, { args: ['ping'], startWorkflowOperation: start });
      },
      { total: admissions },
    );
    rows.push(row('update-with-start echo (reference)', echoes.latencies, echoes.seconds));
    rows.push(await depositsToCredit(api, dataDir, config.LOCAL_CHAIN_CONFIRMATIONS));
    rows.push(...(await x402Rows(api, dataDir)));
  } finally {
    await stopAll(stops, logger);
    await rm(dataDir, { recursive: true, force: true });
  }

  const table = [
    '| measurement | requests | per second | p50 ms | p99 ms |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(
      (r) => `| ${r.name} | ${r.count} | ${r.perSecond.toFixed(1)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} |`,
    ),
  ];
  console.log(
    `\nGeneration gateway benchmark (embedded default, ${concurrency} in flight, local/lanczos upscale of an 8×8 PNG)\n`,
  );
  console.log(table.join('\n'));
  process.exit(0);
}

await main();

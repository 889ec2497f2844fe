// Crash safety: worker processes are killed (SIGKILL) while 20 tasks run; replacements finish them. Every task
// ends exactly once, is charged at most once, and the ledger still sums to the balance.
import { createServer, type Server } from 'node:http';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import { credit, ledgerTotals } from '../../src/ledger/ledger.ts';
import { createLocalStorage } from '../../src/storage/local-storage.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startGeneration } from '../helpers/http.ts';
import { listenLocally } from '../../harness/local-server.ts';
import { useDevServerAndDatabase } from '../helpers/stack.ts';
import { uniqueTaskQueue } from '../helpers/temporal.ts';
import { launchWorkerProcess } from '../helpers/worker-process.ts';
import type { GatewayProcess } from '../../harness/stacks/gateway-process.ts';

const stack = useDevServerAndDatabase();
const taskQueue = uniqueTaskQueue('crash');
let dataDir: string;
let app: TestApp;
let inputs: Server;
let inputsUrl: string;
const workers = new Set<GatewayProcess>();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-crash-'));
  await chmod(dataDir, 0o755);
  const config = loadConfig({ NODE_ENV: 'test' }, []);
  app = await startTestApp({
    database: stack.database,
    config,
    catalog: loadCatalog(),
    storage: createLocalStorage(join(dataDir, 'files'), 'http://127.0.0.1'),
    temporal: { client: stack.env.client, taskQueue },
  });
  // Slow inputs keep tasks inside the provider step long enough for the kills to land mid-task.
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#aa3300' } })
    .png()
    .toBuffer();
  inputs = createServer((_req, res) => {
    setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(png), 400);
  });
  inputsUrl = (await listenLocally(inputs)).url;
});

afterAll(async () => {
  await Promise.all([...workers].map((worker) => worker.kill()));
  await app?.close();
  inputs?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A worker as operators run one: `npm start -- --role worker`, in its own process. */
async function startWorkerProcess(): Promise<GatewayProcess> {
  const child = await launchWorkerProcess({
    databaseUrl: stack.database.url,
    temporalAddress: stack.env.address,
    taskQueue,
    dataDir,
    env: { ALLOW_PRIVATE_INPUT_URLS: 'true' },
  });
  workers.add(child);
  void child.exited.then(() => workers.delete(child));
  return child;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function statuses(accountId: string) {
  const tasks = await stack.database.prisma.task.findMany({ where: { accountId }, select: { id: true, status: true } });
  return tasks;
}

it('20 tasks survive workers killed mid-flight: each ends once, charged once, and the ledger balances', async () => {
  const developer = await createDeveloperWithKey(stack.database.prisma);
  const accountId = developer.developerId;
  await credit(stack.database.prisma, {
    accountId,
    amount: 10_000_000n,
    kind: 'adjustment',
    idempotencyKey: `topup:${accountId}`,
  });

  let victim = await startWorkerProcess();
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const body = { type: 'upscale', model: 'local/lanczos', image_url: `${inputsUrl}/in-${i}.png` };
    ids.push(await startGeneration({ app }, { key: developer.apiKey.key, body })); // throws unless 202
  }

  // Kill the worker whenever a task is inside its provider call, up to three times, while tasks remain.
  let killsMidTask = 0;
  for (let kill = 0; kill < 3; kill++) {
    const deadline = Date.now() + 60_000;
    let current = await statuses(accountId);
    while (
      !current.some((task) => task.status === 'processing') &&
      current.some((task) => task.status === 'queued') &&
      Date.now() < deadline
    ) {
      await sleep(100);
      current = await statuses(accountId);
    }
    if (!current.some((task) => task.status === 'processing')) break;
    await sleep(150 * kill);
    await victim.kill();
    killsMidTask += 1;
    victim = await startWorkerProcess();
  }
  expect(killsMidTask).toBeGreaterThanOrEqual(1);

  const deadline = Date.now() + 120_000;
  let tasks = await statuses(accountId);
  while (tasks.some((task) => task.status === 'queued' || task.status === 'processing') && Date.now() < deadline) {
    await sleep(500);
    tasks = await statuses(accountId);
  }
  expect(tasks.map((task) => task.id).sort()).toEqual([...ids].sort());
  expect(tasks.filter((task) => task.status !== 'completed')).toEqual([]);

  const entries = await stack.database.prisma.ledgerEntry.groupBy({
    by: ['taskId', 'kind'],
    where: { accountId, taskId: { not: null } },
    _count: true,
  });
  for (const id of ids) {
    const kinds = entries
      .filter((entry) => entry.taskId === id)
      .map((entry) => `${entry.kind}×${entry._count}`)
      .sort();
    expect(kinds, id).toEqual(['charge×1', 'reserve×1']);
  }
  const row = await stack.database.prisma.balance.findUniqueOrThrow({ where: { accountId } });
  const totals = await ledgerTotals(stack.database.prisma, accountId);
  expect({ balance: totals.balance, reserved: totals.reserved }).toEqual({
    balance: row.balance,
    reserved: row.reserved,
  });
  expect(row).toMatchObject({ balance: 10_000_000n - 20n * 500n, reserved: 0n });
}, 240_000);

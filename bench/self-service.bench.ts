// Part of `npm run bench` (issue 37): the task history page (GET /generations) over an account with 1,000,000 tasks,
// and what a key's spend policy adds to an admission. The embedded default runs in this process (its startRuntime, in
// a scratch DATA_DIR); reads go through its HTTP API, open loop at a fixed offered rate; the admission is timed as the
// transaction itself (admitTask), with and without a key. Prints one table; BENCH_PHASE_SECONDS (default 20) sets
// how long each phase offers load, BENCH_HISTORY_TASKS (default 1,000,000) how many tasks are seeded.
import type { IssuedKey } from '../src/accounts/api-keys.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import { newId } from '../src/domain/ids.ts';
import { encodeHistoryCursor } from '../src/generations/history-cursor.ts';
import { admitTask } from '../src/generations/tasks.ts';
import { startEmbeddedService } from './embedded-service.ts';
import { type Measured, openLoop, percentile } from './load.ts';
import { formatTable, loadRow, type Row, withTarget } from './table.ts';
import { type SeededAccount, seedTaskHistory } from './task-history-seed.ts';

const phaseSeconds = Number(process.env.BENCH_PHASE_SECONDS ?? 20);
const historyTasks = Number(process.env.BENCH_HISTORY_TASKS ?? 1_000_000);
const readRate = 50;
const admissionRate = 20;
const warmUpSeconds = 2;
/** Where the deep page starts: after the cursor of this task (the 900,000th newest of a million). */
const deepShare = 0.9;

const progress = (line: string) => console.error(`[bench self-service] ${line}`);
const maxOf = (measured: Measured) => `, max ${Math.max(...measured.latencies).toFixed(1)} ms`;

/** `path` read with `key` at `readRate` after a warm-up; a row held to p99 ≤ `targetMs`. */
async function readRow(api: string, name: string, read: { path: string; key: IssuedKey }, targetMs: number) {
  const headers = { authorization: `Bearer ${read.key.key}` };
  const get = async () => {
    const response = await fetch(`${api}${read.path}`, { headers });
    if (response.status !== 200) throw new Error(`GET ${read.path} answered ${response.status}`);
    await response.arrayBuffer();
  };
  // A full page, or the row would time an empty answer.
  const first = (await (await fetch(`${api}${read.path}`, { headers })).json()) as { generations?: unknown[] };
  if (first.generations?.length !== 50) throw new Error(`GET ${read.path}: ${JSON.stringify(first).slice(0, 300)}`);
  await openLoop(readRate, warmUpSeconds, get);
  const measured = await openLoop(readRate, phaseSeconds, get);
  const row = loadRow(name, readRate, measured, maxOf(measured));
  return withTarget(row, `p99 ≤ ${targetMs} ms`, row.p99! <= targetMs);
}

async function historyRows(api: string, prisma: PrismaClient, seeded: SeededAccount): Promise<Row[]> {
  const deep = await prisma.task.findUniqueOrThrow({
    where: { id: seeded.taskId(Math.round(historyTasks * deepShare)) },
    select: { createdAt: true, id: true },
  });
  const pages = [
    { name: 'newest 50', path: '/generations?limit=50', key: seeded.defaultKey },
    {
      name: `50 after a cursor ${Math.round(historyTasks * deepShare).toLocaleString('en')} tasks deep`,
      path: `/generations?limit=50&cursor=${encodeHistoryCursor(deep)}`,
      key: seeded.defaultKey,
    },
    {
      name: 'newest 50 of one model (`model=`)',
      path: '/generations?limit=50&model=fal/flux-dev',
      key: seeded.defaultKey,
    },
    { name: 'newest 50, as the policy key (its own tasks)', path: '/generations?limit=50', key: seeded.policyKey },
  ];
  const rows: Row[] = [];
  for (const page of pages) {
    progress(`history: ${page.name}`);
    rows.push(await readRow(api, `GET /generations: ${page.name}`, page, 20));
  }
  return rows;
}

/** Admissions of one kind at `admissionRate`: the admitTask transaction alone, as the workflow's activity runs it. */
async function admissions(prisma: PrismaClient, accountId: string, apiKeyId?: string): Promise<Measured> {
  const admit = async () => {
    await admitTask(prisma, {
      taskId: newId('gen'),
      accountId,
      request: { type: 'text-to-image', model: 'fal/flux-schnell', prompt: 'a bench' },
      costMicros: 3_000n,
      idempotencyKey: null,
      ...(apiKeyId && { apiKeyId }),
    });
  };
  await openLoop(admissionRate, warmUpSeconds, admit);
  return openLoop(admissionRate, phaseSeconds, admit);
}

/**
 * Without a key, with the policy key, with its sub-key (the check walks up to the policy key); the admitted tasks are
 * left queued (no workflow runs them: the scratch database goes with the bench).
 */
async function admissionRows(prisma: PrismaClient, seeded: SeededAccount): Promise<Row[]> {
  const kinds = [
    { name: 'without a key', keyId: undefined },
    { name: 'with a policy key (budget, models, max cost)', keyId: seeded.policyKey.id },
    { name: 'with a sub-key of the policy key (two policies)', keyId: seeded.subKey.id },
  ];
  const rows: Row[] = [];
  let withoutP50 = 0;
  for (const kind of kinds) {
    progress(`admission ${kind.name}`);
    const measured = await admissions(prisma, seeded.accountId, kind.keyId);
    const p50 = percentile(measured.latencies, 50);
    const name = `admitTask ${kind.name}`;
    if (!kind.keyId) {
      withoutP50 = p50;
      rows.push(loadRow(name, admissionRate, measured, maxOf(measured)));
      continue;
    }
    const over = p50 - withoutP50;
    const extra = `${maxOf(measured)}; p50 ${over >= 0 ? '+' : '−'}${Math.abs(over).toFixed(1)} ms over no key`;
    rows.push(withTarget(loadRow(name, admissionRate, measured, extra), 'p50 ≤ 2 ms over no key', over <= 2));
  }
  return rows;
}

async function main() {
  const service = await startEmbeddedService('self-service', { LOG_LEVEL: 'error' });
  const rows: Row[] = [];
  try {
    progress(`seeding ${historyTasks.toLocaleString('en')} tasks`);
    const seeded = await seedTaskHistory(service.prisma, historyTasks, progress);
    rows.push(...(await historyRows(service.api, service.prisma, seeded)));
    rows.push(...(await admissionRows(service.prisma, seeded)));
  } finally {
    await service.stop();
  }
  console.log(
    `\nSelf-service (issue 37): ${service.layout}; one account with ${historyTasks.toLocaleString('en')} tasks ` +
      `over 90 days; open-loop phases of ${phaseSeconds} s after ${warmUpSeconds} s of warm-up\n`,
  );
  console.log(formatTable(rows));
}

await main();

// Part of `npm run bench` (issue 37): the task history page (GET /generations) and the usage report (GET /usage) of
// an account with 1,000,000 tasks, and what a key's spend policy adds to an admission. The embedded default runs in
// this process (its startRuntime, in a scratch DATA_DIR); reads go through its HTTP API, open loop at a fixed offered
// rate; the admission is timed as the transaction itself (admitTask), with and without a key. Prints one table;
// BENCH_PHASE_SECONDS (default 20) sets how long each phase offers load, BENCH_HISTORY_TASKS (default 1,000,000) how
// many tasks are seeded.
import type { IssuedKey } from '../src/accounts/api-keys.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import { newId } from '../src/domain/ids.ts';
import { encodeHistoryCursor } from '../src/generations/history-cursor.ts';
import { admitTask } from '../src/generations/tasks.ts';
import { startEmbeddedService } from './embedded-service.ts';
import { type Measured, openLoop, percentile } from './load.ts';
import { offerReads } from './read-load.ts';
import { formatTable, loadRow, type Row, withTarget } from './table.ts';
import { type SeededAccount, seedTaskHistory } from './task-history-seed.ts';

const phaseSeconds = Number(process.env.BENCH_PHASE_SECONDS ?? 20);
const historyTasks = Number(process.env.BENCH_HISTORY_TASKS ?? 1_000_000);
/** History pages a second. */
const readRate = 50;
/** Usage reports a second: a report is a rarer request than a page (a console's chart, an agent checking its spend). */
const usageRate = 10;
/** All three kinds of admission together: 10/s each. */
const admissionRate = 30;
const warmUpSeconds = 2;
/** Where the deep page starts: after the cursor of this task (the 900,000th newest of a million). */
const deepShare = 0.9;

const progress = (line: string) => console.error(`[bench self-service] ${line}`);
const maxOf = (measured: Measured) => `, max ${Math.max(...measured.latencies).toFixed(1)} ms`;

/** A GET the table times: its row's name, the key it is sent with, and what its answer must hold to count. */
interface Read {
  name: string;
  path: string;
  key: IssuedKey;
  /** Checked once before the load: a row must not time an empty or wrong answer. */
  answers(body: unknown): boolean;
}

/** `read` at `rate` after a warm-up, from a worker thread; a row held to p99 ≤ `targetMs`. */
async function readRow(api: string, read: Read, { rate, targetMs }: { rate: number; targetMs: number }) {
  progress(read.name);
  const headers = { authorization: `Bearer ${read.key.key}` };
  const first = await (await fetch(`${api}${read.path}`, { headers })).json();
  if (!read.answers(first)) throw new Error(`GET ${read.path}: ${JSON.stringify(first).slice(0, 300)}`);
  const measured = await offerReads({ url: `${api}${read.path}`, headers, rate, warmUpSeconds, seconds: phaseSeconds });
  const row = loadRow(read.name, rate, measured, maxOf(measured));
  return withTarget(row, `p99 ≤ ${targetMs} ms`, row.p99! <= targetMs);
}

const fullPage = (body: unknown) => (body as { generations?: unknown[] }).generations?.length === 50;

async function historyRows(api: string, prisma: PrismaClient, seeded: SeededAccount): Promise<Row[]> {
  const deep = await prisma.task.findUniqueOrThrow({
    where: { id: seeded.taskId(Math.round(historyTasks * deepShare)) },
    select: { createdAt: true, id: true },
  });
  const { defaultKey, policyKey } = seeded;
  const pages: Read[] = [
    { name: 'newest 50', path: '/generations?limit=50', key: defaultKey, answers: fullPage },
    {
      name: `50 after a cursor ${Math.round(historyTasks * deepShare).toLocaleString('en')} tasks deep`,
      path: `/generations?limit=50&cursor=${encodeHistoryCursor(deep)}`,
      key: defaultKey,
      answers: fullPage,
    },
    {
      name: 'newest 50 of one model',
      path: '/generations?limit=50&model=fal/flux-dev',
      key: defaultKey,
      answers: fullPage,
    },
    {
      name: 'newest 50, as the policy key (its own tasks)',
      path: '/generations?limit=50',
      key: policyKey,
      answers: fullPage,
    },
  ];
  const rows: Row[] = [];
  for (const page of pages)
    rows.push(
      await readRow(api, { ...page, name: `GET /generations: ${page.name}` }, { rate: readRate, targetMs: 20 }),
    );
  return rows;
}

const day = (at: Date) => at.toISOString().slice(0, 10);
const reportedTasks = (body: unknown) => (body as { totals?: { tasks?: number } }).totals?.tasks ?? 0;

/** The whole history's usage by day and model (every seeded task in it), and the policy key's last 30 days. */
async function usageRows(api: string, seeded: SeededAccount): Promise<Row[]> {
  const period = `from=${day(new Date(Date.now() - 91 * 86_400_000))}&to=${day(new Date())}`;
  const reads: Read[] = [
    {
      name: 'GET /usage: 90 days by day and model',
      path: `/usage?${period}&group_by=day,model`,
      key: seeded.defaultKey,
      answers: (body) => reportedTasks(body) === historyTasks,
    },
    {
      name: 'GET /usage: 30 days by day and model, as the policy key',
      path: '/usage?group_by=day,model',
      key: seeded.policyKey,
      answers: (body) => reportedTasks(body) > 0,
    },
  ];
  const rows: Row[] = [];
  for (const read of reads) rows.push(await readRow(api, read, { rate: usageRate, targetMs: 50 }));
  return rows;
}

/** An admission the table times: with the key `keyId`, or without a key. */
interface AdmissionKind {
  name: string;
  keyId?: string;
}

/**
 * The admitTask transaction alone (as the workflow's activity runs it) for each kind in turn, interleaved in one open
 * loop at `admissionRate` so that every kind meets the same load; each kind's latencies apart.
 */
async function interleavedAdmissions(prisma: PrismaClient, accountId: string, kinds: AdmissionKind[]) {
  const byKind = kinds.map((): Measured => ({ latencies: [], failures: 0, seconds: 0 }));
  const admit = async (i: number, record: boolean) => {
    const kind = i % kinds.length;
    const started = performance.now();
    await admitTask(prisma, {
      taskId: newId('gen'),
      accountId,
      request: { type: 'text-to-image', model: 'fal/flux-schnell', prompt: 'a bench' },
      costMicros: 3_000n,
      idempotencyKey: null,
      ...(kinds[kind]!.keyId && { apiKeyId: kinds[kind]!.keyId }),
    }).catch((error: unknown) => {
      if (record) byKind[kind]!.failures++;
      throw error;
    });
    if (record) byKind[kind]!.latencies.push(performance.now() - started);
  };
  await openLoop(admissionRate, warmUpSeconds, (i) => admit(i, false));
  const all = await openLoop(admissionRate, phaseSeconds, (i) => admit(i, true));
  return byKind.map((measured) => ({ ...measured, seconds: all.seconds, firstError: all.firstError }));
}

/**
 * Without a key, with the policy key, with its sub-key (the check walks up to the policy key); the admitted tasks are
 * left queued (no workflow runs them: the scratch database goes with the bench).
 */
async function admissionRows(prisma: PrismaClient, seeded: SeededAccount): Promise<Row[]> {
  const kinds: AdmissionKind[] = [
    { name: 'without a key' },
    { name: 'with a policy key (budget, models, max cost)', keyId: seeded.policyKey.id },
    { name: 'with a sub-key of the policy key (two policies)', keyId: seeded.subKey.id },
  ];
  progress(`admissions, ${kinds.length} kinds interleaved`);
  const measured = await interleavedAdmissions(prisma, seeded.accountId, kinds);
  const withoutP50 = percentile(measured[0]!.latencies, 50);
  const offered = admissionRate / kinds.length;
  return kinds.map((kind, i) => {
    const name = `admitTask ${kind.name} (interleaved)`;
    if (!kind.keyId) return loadRow(name, offered, measured[i]!, maxOf(measured[i]!));
    const over = percentile(measured[i]!.latencies, 50) - withoutP50;
    const extra = `${maxOf(measured[i]!)}; p50 ${over >= 0 ? '+' : '−'}${Math.abs(over).toFixed(1)} ms over no key`;
    return withTarget(loadRow(name, offered, measured[i]!, extra), 'p50 ≤ 2 ms over no key', over <= 2);
  });
}

async function main() {
  const service = await startEmbeddedService('self-service', { LOG_LEVEL: 'error' });
  const rows: Row[] = [];
  try {
    progress(`seeding ${historyTasks.toLocaleString('en')} tasks`);
    const seeded = await seedTaskHistory(service.prisma, historyTasks, progress);
    rows.push(...(await historyRows(service.api, service.prisma, seeded)));
    rows.push(...(await usageRows(service.api, seeded)));
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

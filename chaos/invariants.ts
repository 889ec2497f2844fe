// What must hold after any fault, read from the database (and the webhook receiver): every task ended, none lost,
// none charged twice, each account's ledger sums to its balance row with nothing left reserved, and every webhook
// message acknowledged by its target, recorded as delivered once.
import type { PrismaClient } from '../src/db/prisma.ts';
import type { LoadReport } from './client.ts';
import type { ChaosReceiver } from './receiver.ts';
import { checkLedger } from '../harness/ledger-check.ts';

export interface Figures {
  tasks: number;
  completed: number;
  failed: number;
  /** Each failed task's error, counted: why they failed, for the report. */
  failureReasons: Record<string, number>;
  /** Posted keys without a task that ended: never admitted, no row, or still queued/processing. */
  lost: number;
  /** Tasks with more than one charge (or reservation) entry. */
  doubleCharges: number;
  webhookMessages: number;
  /** Messages whose target acknowledged them and whose delivery log holds exactly one success. */
  webhooksDeliveredOnce: number;
  /** Extra 2xx deliveries of a message the receiver had already acknowledged (at-least-once resends). */
  webhookResends: number;
  /** Every broken invariant, in words; empty when all hold. */
  problems: string[];
}

export async function checkInvariants(
  prisma: PrismaClient,
  input: { accountId: string; load: LoadReport; receiver: ChaosReceiver },
): Promise<Figures> {
  const problems: string[] = [];
  const { accountId, load, receiver } = input;
  const tasks = await prisma.task.findMany({
    where: { accountId },
    select: { id: true, status: true, error: true, idempotencyKey: true, webhookUrl: true },
  });
  const byKey = new Map<string, string[]>();
  for (const task of tasks)
    byKey.set(task.idempotencyKey ?? '', [...(byKey.get(task.idempotencyKey ?? '') ?? []), task.id]);
  let lost = 0;
  for (const key of load.keys) {
    const ids = byKey.get(key) ?? [];
    if (ids.length !== 1) problems.push(`key ${key} has ${ids.length} tasks`);
    const task = tasks.find((candidate) => candidate.id === ids[0]);
    if (!task || (task.status !== 'completed' && task.status !== 'failed')) lost += 1;
    if (task && load.admitted.get(key) !== task.id) problems.push(`key ${key}: the client was answered another id`);
  }
  const unposted = tasks.filter((task) => !load.keys.includes(task.idempotencyKey ?? ''));
  if (unposted.length > 0) problems.push(`${unposted.length} tasks under keys nobody posted`);
  if (lost > 0) problems.push(`${lost} tasks lost (not admitted, or not ended)`);

  // Every account's money rules: the load's, and any other the fault may have touched.
  const accounts = await prisma.balance.findMany({ select: { accountId: true } });
  const ledgers = await Promise.all(accounts.map((account) => checkLedger(prisma, account.accountId)));
  problems.push(...ledgers.flatMap((ledger) => ledger.problems));
  const doubles = ledgers.flatMap((ledger) => ledger.chargedTwice);

  const webhooks = await webhookFigures(prisma, tasks, receiver);
  problems.push(...webhooks.problems);
  return {
    tasks: load.keys.length,
    completed: tasks.filter((task) => task.status === 'completed').length,
    failed: tasks.filter((task) => task.status === 'failed').length,
    failureReasons: countFailureReasons(tasks),
    lost,
    doubleCharges: doubles.length,
    webhookMessages: webhooks.messages,
    webhooksDeliveredOnce: webhooks.deliveredOnce,
    webhookResends: webhooks.resends,
    problems,
  };
}

function countFailureReasons(tasks: { status: string; error: string | null }[]): Record<string, number> {
  const reasons: Record<string, number> = {};
  for (const task of tasks.filter((candidate) => candidate.status === 'failed')) {
    const reason = task.error ?? '(no error)';
    reasons[reason] = (reasons[reason] ?? 0) + 1;
  }
  return reasons;
}

/** Ended tasks whose webhook message is not yet both acknowledged by the receiver and logged as delivered. */
export async function webhooksOutstanding(
  prisma: PrismaClient,
  accountId: string,
  receiver: ChaosReceiver,
): Promise<number> {
  const ended = await prisma.task.findMany({
    where: { accountId, status: { in: ['completed', 'failed'] } },
    select: { id: true },
  });
  const delivered = await prisma.webhookDelivery.findMany({
    where: { taskId: { in: ended.map((task) => task.id) }, statusCode: { gte: 200, lt: 300 } },
    select: { messageId: true },
  });
  const settled = new Set(delivered.map((row) => row.messageId).filter((id) => receiver.acknowledged.has(id)));
  return ended.length - settled.size;
}

async function webhookFigures(
  prisma: PrismaClient,
  tasks: { id: string; status: string; webhookUrl: string | null }[],
  receiver: ChaosReceiver,
) {
  const problems: string[] = [];
  const ids = tasks.map((task) => task.id);
  const messages = await prisma.webhookMessage.findMany({
    where: { taskId: { in: ids } },
    select: { id: true, taskId: true },
  });
  const successes = await prisma.$queryRaw<{ message_id: string; url: string; ok: number }[]>`
    SELECT message_id, url, (COUNT(*) FILTER (WHERE status_code BETWEEN 200 AND 299))::int AS ok
    FROM webhook_deliveries WHERE task_id = ANY(${ids}) GROUP BY message_id, url`;
  const perTask = new Map<string, number>();
  for (const message of messages) perTask.set(message.taskId!, (perTask.get(message.taskId!) ?? 0) + 1);
  for (const task of tasks) {
    const count = perTask.get(task.id) ?? 0;
    if (task.webhookUrl && count !== 1) problems.push(`${task.id} (${task.status}) has ${count} webhook messages`);
  }
  let deliveredOnce = 0;
  let resends = 0;
  for (const message of messages) {
    const task = tasks.find((candidate) => candidate.id === message.taskId)!;
    const logged = successes.filter((row) => row.message_id === message.id);
    const acknowledged = receiver.acknowledged.get(message.id) ?? 0;
    resends += Math.max(0, acknowledged - 1);
    const once = logged.length === 1 && logged[0]!.url === task.webhookUrl && logged[0]!.ok === 1;
    if (once && acknowledged >= 1) deliveredOnce += 1;
    else
      problems.push(
        `${message.id}: acknowledged ${acknowledged}×, logged ${logged.map((row) => `${row.url}:${row.ok}`).join(' ') || 'nothing'}`,
      );
  }
  return { messages: messages.length, deliveredOnce, resends, problems };
}

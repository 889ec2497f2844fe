// An account's task history (GET /generations): its tasks newest first, a page at a time, each shown exactly as
// GET /generations/{id} shows it. Keyset pagination on (created_at, id): a page is one range scan of the
// (account_id, created_at) index from the cursor down, however deep (ties within a millisecond sorted by id as they
// come), and tasks created while a caller pages land above the cursor, so none is skipped or listed twice.
import type { Config } from '../config/config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { TaskStatus } from '../domain/values.ts';
import { type AccountKind, Prisma, type Task } from '../generated/prisma/client.ts';
import { encodeHistoryCursor, type HistoryPosition } from './history-cursor.ts';
import { taskView, type TaskView, type ViewedTask } from './task-view.ts';

/** Whose tasks are listed: the account's, or only those of `onlyKeyId` (a key with a policy sees its own). */
export interface TaskHistoryScope {
  accountId: string;
  accountKind: AccountKind;
  onlyKeyId?: string;
}

/** Which tasks: every filter given must match; `createdAfter` and `createdBefore` are exclusive. */
export interface TaskHistoryFilter {
  status?: TaskStatus;
  type?: string;
  model?: string;
  idempotencyKey?: string;
  /** The key that created them. */
  keyId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

export interface TaskHistoryQuery {
  scope: TaskHistoryScope;
  filter: TaskHistoryFilter;
  limit: number;
  /** The last task of the previous page: this page starts just below it. */
  after?: HistoryPosition;
}

export interface TaskHistoryPage {
  tasks: TaskView[];
  /** The cursor of the next page; null on the last one. */
  nextCursor: string | null;
}

export interface TaskHistoryDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'outputs'>;
}

/** Each column a task's view reads (all but the stored request), under its Prisma name: a new column fails to compile. */
const viewedColumns: Record<keyof Omit<Task, 'request'>, string> = {
  id: 'id',
  accountId: 'account_id',
  type: 'type',
  model: 'model',
  status: 'status',
  prompt: 'prompt',
  output: 'output',
  outputs: 'outputs',
  error: 'error',
  aspectRatio: 'aspect_ratio',
  duration: 'duration',
  resolution: 'resolution',
  numOutputs: 'num_outputs',
  inputSeconds: 'input_seconds',
  costReserved: 'cost_reserved',
  costCharged: 'cost_charged',
  webhookUrl: 'webhook_url',
  idempotencyKey: 'idempotency_key',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  completedAt: 'completed_at',
  startedAt: 'started_at',
  progress: 'progress',
  replayOf: 'replay_of',
  servedBy: 'served_by',
  outputsDeletedAt: 'outputs_deleted_at',
  apiKeyId: 'api_key_id',
  usage: 'usage',
};
const selectViewed = Prisma.raw(
  Object.entries(viewedColumns)
    .map(([field, column]) => (field === column ? column : `${column} AS "${field}"`))
    .join(', '),
);

/** The page's conditions; strictly below `after` in (created_at DESC, id DESC), whose created_at bound the index uses. */
function historyConditions({ scope, filter, after }: TaskHistoryQuery): Prisma.Sql {
  const conditions = [
    Prisma.sql`account_id = ${scope.accountId}`,
    filter.status && Prisma.sql`status = ${filter.status}::"TaskStatus"`,
    filter.type && Prisma.sql`type = ${filter.type}`,
    filter.model && Prisma.sql`model = ${filter.model}`,
    filter.idempotencyKey && Prisma.sql`idempotency_key = ${filter.idempotencyKey}`,
    filter.createdAfter && Prisma.sql`created_at > ${filter.createdAfter}`,
    filter.createdBefore && Prisma.sql`created_at < ${filter.createdBefore}`,
    scope.onlyKeyId && Prisma.sql`api_key_id = ${scope.onlyKeyId}`,
    filter.keyId && Prisma.sql`api_key_id = ${filter.keyId}`,
    after && Prisma.sql`created_at <= ${after.createdAt} AND (created_at < ${after.createdAt} OR id < ${after.id})`,
  ];
  return Prisma.join(
    conditions.filter((condition) => condition instanceof Prisma.Sql),
    ' AND ',
  );
}

/** One page of the scope's tasks, newest first; a next cursor only when more tasks follow. */
export async function listTaskHistory(deps: TaskHistoryDeps, query: TaskHistoryQuery): Promise<TaskHistoryPage> {
  // One row more than the page tells whether another page follows.
  // SQL, not findMany: Prisma's reading of a page was half of its CPU. The stored request (the largest column, no part
  // of the view) is not read.
  const rows = await deps.prisma.$queryRaw<ViewedTask[]>`
    SELECT ${selectViewed} FROM tasks WHERE ${historyConditions(query)}
    ORDER BY created_at DESC, id DESC LIMIT ${query.limit + 1}`;
  if (query.scope.accountKind === 'wallet') await attachPayments(deps.prisma, rows);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    tasks: page.map((task) => taskView(task, deps.config.outputs)),
    nextCursor: rows.length > query.limit && last ? encodeHistoryCursor(last) : null,
  };
}

/** Only wallets pay with x402: as GET /generations/{id} does, other accounts' tasks are read without their payments. */
async function attachPayments(prisma: PrismaClient, tasks: ViewedTask[]): Promise<void> {
  const payments = await prisma.x402Payment.findMany({ where: { taskId: { in: tasks.map((task) => task.id) } } });
  const byTask = new Map(payments.map((payment) => [payment.taskId, payment]));
  for (const task of tasks) task.payment = byTask.get(task.id) ?? null;
}

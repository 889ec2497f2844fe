// An account's task history (GET /generations): its tasks newest first, a page at a time, each shown exactly as
// GET /generations/{id} shows it. Keyset pagination on (created_at, id): a page is one range scan of the
// (account_id, created_at) index from the cursor down, however deep (ties within a millisecond sorted by id as they
// come), and tasks created while a caller pages land above the cursor, so none is skipped or listed twice.
import type { Config } from '../config/config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { TaskStatus } from '../domain/values.ts';
import type { AccountKind, Prisma } from '../generated/prisma/client.ts';
import { encodeHistoryCursor, type HistoryPosition } from './history-cursor.ts';
import { taskView, type TaskView } from './task-view.ts';

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

/** Strictly below `after` in (created_at DESC, id DESC); the bound on created_at alone is what the index range uses. */
const belowPosition = (after: HistoryPosition): Prisma.TaskWhereInput => ({
  createdAt: { lte: after.createdAt },
  OR: [{ createdAt: { lt: after.createdAt } }, { id: { lt: after.id } }],
});

function historyWhere({ scope, filter, after }: TaskHistoryQuery): Prisma.TaskWhereInput {
  const created = { gt: filter.createdAfter, lt: filter.createdBefore };
  return {
    AND: [
      {
        accountId: scope.accountId,
        status: filter.status,
        type: filter.type,
        model: filter.model,
        idempotencyKey: filter.idempotencyKey,
        createdAt: created,
      },
      scope.onlyKeyId ? { apiKeyId: scope.onlyKeyId } : {},
      filter.keyId ? { apiKeyId: filter.keyId } : {},
      after ? belowPosition(after) : {},
    ],
  };
}

/** One page of the scope's tasks, newest first; a next cursor only when more tasks follow. */
export async function listTaskHistory(deps: TaskHistoryDeps, query: TaskHistoryQuery): Promise<TaskHistoryPage> {
  // One row more than the page tells whether another page follows. Only wallets pay with x402: as GET
  // /generations/{id} does, other accounts' tasks are read without the payment query.
  const rows = await deps.prisma.task.findMany({
    where: historyWhere(query),
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: query.limit + 1,
    // The stored request is the largest column and no part of the view: a page of 100 does not read it.
    omit: { request: true },
    include: { payment: query.scope.accountKind === 'wallet' },
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    tasks: page.map((task) => taskView(task, deps.config.outputs)),
    nextCursor: rows.length > query.limit && last ? encodeHistoryCursor(last) : null,
  };
}

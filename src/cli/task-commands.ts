// genctl tasks list|show: any account's tasks for operators — the API's view of a task plus the account, the money
// held and moved for it, its x402 payment, and its workflow (id = task id) to open in the Temporal Web UI.
import type { PrismaClient } from '../db/prisma.ts';
import { taskStatuses, type TaskStatus } from '../domain/values.ts';
import type { OutputRetention } from '../generations/output-retention.ts';
import { requestHash } from '../generations/request.ts';
import { taskCostMicros, taskView } from '../generations/task-view.ts';
import type { LedgerEntry, Task } from '../generated/prisma/client.ts';
import { formatUsd } from '../domain/money.ts';
import { listTasks, type OperatorTask, taskForOperator } from '../generations/operator-tasks.ts';
import { storedRequest } from '../generations/tasks.ts';
import { CommandError, iso, limitOf, type Output, table } from './commands.ts';

/** Errors are caller-safe but may be long (an upstream's message): a list line shows their start. */
const errorWidth = 60;
const truncated = (text: string) => (text.length > errorWidth ? `${text.slice(0, errorWidth - 1)}…` : text);

const usd = (micros: bigint | null) => (micros === null ? null : formatUsd(micros));
const signedUsd = (micros: bigint) => `${micros > 0n ? '+' : ''}${formatUsd(micros)}`;

function taskJson(task: Task) {
  return {
    id: task.id,
    account_id: task.accountId,
    type: task.type,
    model: task.model,
    status: task.status,
    cost_usd: formatUsd(taskCostMicros(task)),
    created_at: iso(task.createdAt),
    completed_at: iso(task.completedAt),
    served_by: task.servedBy,
    replay_of: task.replayOf,
    error: task.error,
  };
}

const taskCells = (task: Task) => [
  task.id,
  task.accountId,
  task.model,
  task.status,
  `${formatUsd(taskCostMicros(task))} USD`,
  iso(task.createdAt)!,
  [
    task.servedBy && `served by ${task.servedBy}`,
    task.status === 'failed' && task.error && `error: ${truncated(task.error)}`,
  ]
    .filter(Boolean)
    .join('  '),
];

/** The newest tasks first, optionally of one account, in one status, of one model. */
export async function listTasksCommand(
  prisma: PrismaClient,
  options: { account?: string; status?: string; model?: string; limit?: string },
): Promise<Output> {
  if (options.status !== undefined && !(taskStatuses as readonly string[]).includes(options.status))
    throw new CommandError(`--status must be one of ${taskStatuses.join(', ')}`, 2);
  const tasks = await listTasks(prisma, {
    accountId: options.account,
    status: options.status as TaskStatus | undefined,
    model: options.model,
    limit: limitOf(options.limit),
  });
  return {
    json: { tasks: tasks.map(taskJson) },
    text: tasks.length === 0 ? 'No tasks.' : table(tasks.map(taskCells)),
  };
}

const ledgerJson = (entry: LedgerEntry) => ({
  kind: entry.kind,
  account_id: entry.accountId,
  amount_usd: formatUsd(entry.amount),
  reserved_delta_usd: formatUsd(entry.reservedDelta),
  idempotency_key: entry.idempotencyKey,
  memo: entry.memo,
  created_at: iso(entry.createdAt),
});

const ledgerCells = (entry: LedgerEntry) => [
  entry.kind,
  `${signedUsd(entry.amount)} USD`,
  `reserved ${signedUsd(entry.reservedDelta)}`,
  entry.idempotencyKey,
  iso(entry.createdAt)!,
  entry.memo ?? '',
];

function paymentJson(payment: NonNullable<OperatorTask['task']['payment']>) {
  return {
    status: payment.status,
    payer: payment.payer,
    network: payment.network,
    amount_usd: formatUsd(payment.amount),
    amount_settled_usd: usd(payment.amountSettled),
    transaction: payment.transaction,
    error: payment.error,
    settled_at: iso(payment.settledAt),
  };
}

export interface ShowTaskDeps {
  prisma: PrismaClient;
  /** The Temporal Web UI of the running `npm start`, when there is one, and the namespace its workflows run in. */
  temporalUiUrl?: string;
  namespace: string;
  /** OUTPUT_RETENTION_DAYS, for the task's `outputs_expire_at`. */
  retention: OutputRetention;
}

export async function showTaskCommand(deps: ShowTaskDeps, taskId: string | undefined): Promise<Output> {
  if (!taskId) throw new CommandError('missing the task id', 2);
  const found = await taskForOperator(deps.prisma, taskId);
  if (!found) throw new CommandError(`no task ${taskId}`);
  const { task, ledger } = found;
  const workflowUrl = deps.temporalUiUrl
    ? `${deps.temporalUiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(deps.namespace)}/workflows/${task.id}`
    : null;
  const json = {
    // Exactly what GET /generations/{id} answers its caller.
    task: taskView(task, deps.retention),
    account_id: task.accountId,
    account_kind: task.account.kind,
    idempotency_key: task.idempotencyKey,
    // Not a column: derived from the stored request as admission derives it to check an Idempotency-Key's reuse.
    request_hash: requestHash(storedRequest(task)),
    reserved_usd: formatUsd(task.costReserved),
    charged_usd: usd(task.costCharged),
    served_by: task.servedBy,
    replay_of: task.replayOf,
    replayed_by: task.replay?.id ?? null,
    // When the retention sweep deleted its stored files (a failed task's strays too); the body says when they expire.
    outputs_deleted_at: iso(task.outputsDeletedAt),
    payment: task.payment ? paymentJson(task.payment) : null,
    ledger: ledger.map(ledgerJson),
    workflow_id: task.id,
    workflow_url: workflowUrl,
  };
  const rows: [string, string | null | undefined][] = [
    ['Task', `${task.id}  ${task.type}  ${task.model}  ${task.status}`],
    ['Account', `${task.accountId} (${task.account.kind})`],
    ['Created', iso(task.createdAt)],
    ['Started', iso(task.startedAt)],
    ['Ended', iso(task.completedAt)],
    [
      'Cost',
      `${formatUsd(taskCostMicros(task))} USD (reserved ${json.reserved_usd}, charged ${json.charged_usd ?? '-'})`,
    ],
    ['Served by', task.servedBy],
    ['Error', task.error],
    ['Outputs', task.outputs.join(' ') || null],
    [
      'Outputs until',
      json.task.outputs_expire_at &&
        json.task.outputs_expire_at + (json.outputs_deleted_at ? `  (deleted ${json.outputs_deleted_at})` : ''),
    ],
    ['Idempotency', task.idempotencyKey],
    ['Request hash', json.request_hash],
    ['Replay of', task.replayOf],
    ['Replayed by', json.replayed_by],
    [
      'x402 payment',
      json.payment &&
        `${json.payment.status}  ${json.payment.amount_usd} USD from ${json.payment.payer} on ${json.payment.network}` +
          (json.payment.transaction ? `  tx ${json.payment.transaction}` : '') +
          (json.payment.error ? `  ${json.payment.error}` : ''),
    ],
    ['Workflow', `${task.id}  ${workflowUrl ?? `(Temporal Web UI, namespace ${deps.namespace})`}`],
  ];
  const lines = rows.filter(([, value]) => value).map(([label, value]) => `${label.padEnd(14)}${value}`);
  if (ledger.length === 0) lines.push('Ledger        no entries');
  else
    lines.push(
      'Ledger',
      ...table(ledger.map(ledgerCells))
        .split('\n')
        .map((line) => `  ${line}`),
    );
  return { json, text: lines.join('\n') };
}

// Admissions interrupted by a dead Temporal, on the real stack. The state the issue measured after SIGKILLs is made
// directly: the admit update's local activity committed the row and its reservation, and Temporal lost the update
// (the workflow waits without it), or lost the workflow itself. Every such task must end, charged at most once.
import { beforeAll, describe, expect, it } from 'vitest';
import { CreateGenerationBodySchema } from '../../src/api/resources/generations/generations.schemas.ts';
import { credit } from '../../src/ledger/ledger.ts';
import { admitTask } from '../../src/generations/tasks.ts';
import type { ReconcileReport } from '../../workflows/contracts/task-reconciler.types.ts';
import {
  ensureTaskReconcilerSchedule,
  interruptedTaskError,
  strandedTaskError,
  taskReconcilerScheduleId,
} from '../../src/use-cases/generations/task-reconciler.ts';
import { generationWorkflow } from '../../workflows/generation/generation.workflow.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { checkedBalance } from '../helpers/balance.ts';
import { useGateway } from '../helpers/gateway.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { call, waitForEnd } from '../helpers/http.ts';
import { balanceGenerationInput } from '../helpers/generation-input.ts';

const gateway = useGateway();
const inputs = usePngInputServer();
let body: { type: string; model: string; image_url: string };
beforeAll(() => {
  body = { type: 'upscale', model: 'local/lanczos', image_url: `${inputs.url()}/input.png` };
});

const startingBalance = 1_000_000n;

async function fundedDeveloper() {
  const { apiKey, developerId } = await createDeveloperWithKey(gateway.database.prisma);
  await credit(gateway.database.prisma, {
    accountId: developerId,
    amount: startingBalance,
    kind: 'adjustment',
    idempotencyKey: `topup:${developerId}`,
  });
  return { key: apiKey.key, accountId: developerId };
}

/** What the workflow of a stranded task looks like: waiting for the lost update, closed, or never saved. */
type Workflow = 'waiting' | 'terminated' | 'missing';

/**
 * The state a SIGKILL of Temporal leaves mid-admission: the row `queued` and its cost reserved (committed by the
 * update's local activity, here by the same service function), and a workflow that never got the update.
 */
async function strand(accountId: string, idempotencyKey: string | null, workflow: Workflow) {
  const deps = { config: gateway.config, catalog: gateway.catalog };
  const request = {
    accountId,
    accountKind: 'developer' as const,
    body: CreateGenerationBodySchema.parse(body),
    idempotencyKey,
  };
  const input = balanceGenerationInput(deps, request);
  const before = await moneyOf(accountId);
  const row = await admitTask(gateway.database.prisma, { ...input, costMicros: BigInt(input.costMicros) });
  if (workflow !== 'missing') {
    const handle = await gateway.env.client.workflow.start(generationWorkflow, {
      workflowId: input.taskId,
      taskQueue: gateway.config.temporal.taskQueue,
      args: [input],
    });
    if (workflow === 'terminated') await handle.terminate('Temporal lost the admission');
  }
  expect(row.status).toBe('queued');
  expect(await moneyOf(accountId)).toEqual({ ...before, reserved: before.reserved + row.costReserved });
  return { taskId: input.taskId, cost: row.costReserved };
}

/** The balance row, checked against the ledger's sums. */
const moneyOf = (accountId: string) => checkedBalance(gateway.database.prisma, accountId);

async function ledgerKinds(taskId: string) {
  const entries = await gateway.database.prisma.ledgerEntry.findMany({ where: { taskId }, select: { kind: true } });
  return entries.map((entry) => entry.kind).sort();
}

const statusOf = async (taskId: string) =>
  (await gateway.database.prisma.task.findUniqueOrThrow({ where: { id: taskId } })).status;

describe('a retried POST with the same Idempotency-Key', () => {
  it.each<Workflow>(['waiting', 'terminated', 'missing'])(
    'finishes an admission whose update was lost (workflow %s): the task runs, charged once',
    async (workflow) => {
      const developer = await fundedDeveloper();
      const { taskId, cost } = await strand(developer.accountId, `order-${workflow}`, workflow);
      const headers = { 'idempotency-key': `order-${workflow}` };

      const retried = await call(gateway, 'POST', '/generations', { key: developer.key, body, headers });
      expect(retried).toMatchObject({ status: 202, body: { id: taskId } });
      const task = await waitForEnd(gateway, { key: developer.key, pollUrl: retried.body.poll_url, timeoutMs: 20_000 });
      expect(task).toMatchObject({ id: taskId, status: 'completed' });
      expect(await ledgerKinds(taskId)).toEqual(['charge', 'reserve']);
      expect(await moneyOf(developer.accountId)).toEqual({ balance: startingBalance - cost, reserved: 0n });
    },
  );
});

/** Every report of the reconciler's runs so far, merged. */
async function reconcilerRepairs() {
  const schedule = await gateway.env.client.schedule.getHandle(taskReconcilerScheduleId).describe();
  const reports = await Promise.all(
    schedule.info.recentActions.map(
      ({ action }) =>
        gateway.env.client.workflow.getHandle(action.workflow.workflowId).result() as Promise<ReconcileReport>,
    ),
  );
  return reports.flatMap((report) => report.repairs);
}

describe('the task reconciler (a Temporal Schedule)', () => {
  it('makes every task queued too long end: a waiting workflow runs it, a lost one is released and failed', async () => {
    const developer = await fundedDeveloper();
    const waiting = await strand(developer.accountId, null, 'waiting');
    const terminated = await strand(developer.accountId, null, 'terminated');
    const missing = await strand(developer.accountId, null, 'missing');
    const young = await strand(developer.accountId, null, 'terminated');
    // Admitted 20 minutes ago: past TASK_RECONCILE_AFTER_SECONDS. The young one was admitted just now.
    await gateway.database.prisma.task.updateMany({
      where: { id: { in: [waiting.taskId, terminated.taskId, missing.taskId] } },
      data: { createdAt: new Date(Date.now() - 20 * 60_000) },
    });

    await ensureTaskReconcilerSchedule(gateway.env.client, gateway.config);
    await gateway.env.client.schedule.getHandle(taskReconcilerScheduleId).trigger();
    await expect.poll(() => statusOf(waiting.taskId), { timeout: 20_000 }).toBe('completed');
    await expect.poll(() => statusOf(terminated.taskId), { timeout: 20_000 }).toBe('failed');
    await expect.poll(() => statusOf(missing.taskId), { timeout: 20_000 }).toBe('failed');

    const repairs = await reconcilerRepairs();
    expect(repairs).toEqual(
      expect.arrayContaining([
        { taskId: waiting.taskId, workflow: 'RUNNING', action: 'admitted' },
        {
          taskId: terminated.taskId,
          workflow: 'TERMINATED',
          action: 'failed',
          releasedMicros: terminated.cost.toString(),
        },
        { taskId: missing.taskId, workflow: 'NOT_FOUND', action: 'failed', releasedMicros: missing.cost.toString() },
      ]),
    );
    expect(repairs.map((repair) => repair.taskId)).not.toContain(young.taskId);
    expect(await statusOf(young.taskId)).toBe('queued');

    const failed = await gateway.database.prisma.task.findUniqueOrThrow({ where: { id: missing.taskId } });
    expect(failed).toMatchObject({ error: strandedTaskError, costCharged: null });
    expect(await ledgerKinds(waiting.taskId)).toEqual(['charge', 'reserve']);
    expect(await ledgerKinds(terminated.taskId)).toEqual(['release', 'reserve']);
    expect(await ledgerKinds(missing.taskId)).toEqual(['release', 'reserve']);
    // Only the task that ran is charged; the young one still holds its reservation.
    expect(await moneyOf(developer.accountId)).toEqual({
      balance: startingBalance - waiting.cost,
      reserved: young.cost,
    });
    await gateway.env.client.schedule.getHandle(taskReconcilerScheduleId).delete();
  });
});

describe('the task reconciler and tasks whose workflow closed while they ran (issue 16)', () => {
  it('releases and fails a processing task whose workflow is closed or gone, reporting each; a running one is left', async () => {
    const developer = await fundedDeveloper();
    const terminated = await strand(developer.accountId, null, 'terminated');
    const missing = await strand(developer.accountId, null, 'missing');
    const running = await strand(developer.accountId, null, 'waiting');
    // Marked processing 20 minutes ago, as their workflows did before an operator terminated one (and lost one).
    const ids = [terminated.taskId, missing.taskId, running.taskId];
    await gateway.database.prisma.task.updateMany({
      where: { id: { in: ids } },
      data: { status: 'processing', updatedAt: new Date(Date.now() - 20 * 60_000) },
    });

    await ensureTaskReconcilerSchedule(gateway.env.client, gateway.config);
    await gateway.env.client.schedule.getHandle(taskReconcilerScheduleId).trigger();
    await expect.poll(() => statusOf(terminated.taskId), { timeout: 20_000 }).toBe('failed');
    await expect.poll(() => statusOf(missing.taskId), { timeout: 20_000 }).toBe('failed');

    const repairs = await reconcilerRepairs();
    expect(repairs).toEqual(
      expect.arrayContaining([
        {
          taskId: terminated.taskId,
          workflow: 'TERMINATED',
          action: 'failed',
          releasedMicros: terminated.cost.toString(),
        },
        { taskId: missing.taskId, workflow: 'NOT_FOUND', action: 'failed', releasedMicros: missing.cost.toString() },
      ]),
    );
    expect(repairs.map((repair) => repair.taskId)).not.toContain(running.taskId);
    expect(await statusOf(running.taskId)).toBe('processing');
    const failed = await gateway.database.prisma.task.findUniqueOrThrow({ where: { id: terminated.taskId } });
    expect(failed).toMatchObject({ error: interruptedTaskError, costCharged: null });
    expect(await ledgerKinds(terminated.taskId)).toEqual(['release', 'reserve']);
    expect(await ledgerKinds(missing.taskId)).toEqual(['release', 'reserve']);
    // Only the running task still holds its reservation; nothing was charged.
    expect(await moneyOf(developer.accountId)).toEqual({ balance: startingBalance, reserved: running.cost });

    await gateway.env.client.workflow.getHandle(running.taskId).terminate('end of test');
    await gateway.env.client.schedule.getHandle(taskReconcilerScheduleId).delete();
  });
});

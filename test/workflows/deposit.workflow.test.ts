// The deposit workflow's waits on the time-skipping server: confirmations counted on durable timers, a receipt
// moved or dropped by a reorganisation, a hash never mined. The ledger and the deposit rows are real.
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerTotals } from '../../src/ledger/ledger.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { advancingChain, depositWorkflowHarness, minedDeposit } from '../helpers/deposit-workflow.ts';
import { bundleWorkflows, createTimeSkippingEnv } from '../helpers/temporal.ts';

const context = {} as {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  workflowBundle: WorkflowBundleWithSourceMap;
};
const harness = depositWorkflowHarness(context);

beforeAll(async () => {
  [context.env, context.database, context.workflowBundle] = await Promise.all([
    createTimeSkippingEnv(),
    createTestDatabase(),
    bundleWorkflows(),
  ]);
});
afterAll(async () => {
  await context.env?.teardown();
  await context.database?.drop();
});

let hashes = 0;
const newHash = () => `0x${(++hashes).toString(16).padStart(64, '0')}`;
const timers = (history: temporal.api.history.v1.IHistory | undefined) =>
  history?.events?.filter((event) => event.timerStartedEventAttributes).length ?? 0;

async function depositEntries(accountId: string) {
  return context.database.prisma.ledgerEntry.findMany({ where: { accountId, kind: 'deposit' } });
}

describe('depositWorkflow', () => {
  it('waits for the confirmation depth on durable timers, then credits once', async () => {
    const accountId = await createFundedAccount(context.database.prisma);
    const chain = advancingChain(accountId, 10);
    const txHash = newHash();
    const { result, history } = await harness.run({ txHash, chain });

    expect(result).toMatchObject({
      outcome: 'credited',
      credits: [
        {
          accountId,
          amount_usd: '2.50',
          new_balance: '2.50',
          deposits: [{ amount_usd: '2.50', status: 'credited', new_balance: '2.50', tx_hash: txHash }],
        },
      ],
    });
    expect(chain.looks()).toBe(10);
    expect(timers(history)).toBe(9);
    expect((await depositEntries(accountId)).map((entry) => [entry.amount, entry.idempotencyKey])).toEqual([
      [2_500_000n, `deposit:base:${txHash}#1`],
    ]);
    const totals = await ledgerTotals(context.database.prisma, accountId);
    expect(totals.balance).toBe(2_500_000n);
  });

  it('follows a receipt a reorganisation moved to another block, and credits it once', async () => {
    const accountId = await createFundedAccount(context.database.prisma);
    let inspections = 0;
    const { result } = await harness.run({
      txHash: newHash(),
      chain: {
        // From the second look on (at the depth) the transaction is in another block; the third confirms it there.
        inspectDeposit: async () => minedDeposit(accountId, 2_500_000n, ++inspections >= 2 ? '0xb2' : '0xb1'),
        depositConfirmations: async () => ({ confirmations: 5, required: 5, pollIntervalMs: 2_000 }),
      },
    });
    expect(result?.outcome).toBe('credited');
    expect(inspections).toBe(3);
    expect(await depositEntries(accountId)).toHaveLength(1);
  });

  it('rejects a deposit a reorganisation dropped, and credits nothing', async () => {
    const accountId = await createFundedAccount(context.database.prisma);
    let inspections = 0;
    const txHash = newHash();
    const { result } = await harness.run({
      txHash,
      receiptWaitSeconds: 30,
      chain: {
        inspectDeposit: async () =>
          ++inspections === 1 ? minedDeposit(accountId) : { kind: 'missing' as const, pending: false },
        depositConfirmations: async () => ({ confirmations: 3, required: 3, pollIntervalMs: 2_000 }),
      },
    });
    expect(result).toEqual({ outcome: 'rejected', reason: 'dropped', accountIds: [accountId] });
    expect(await depositEntries(accountId)).toEqual([]);
    const row = await context.database.prisma.deposit.findFirstOrThrow({ where: { chain: 'base', txHash } });
    expect(row).toMatchObject({ status: 'rejected', reason: 'dropped' });
  });

  /** A chain that never knows the hash; `looked` counts its look-ups. */
  const unknownHash = (looked: () => void) => ({
    inspectDeposit: async () => {
      looked();
      return { kind: 'missing' as const, pending: false };
    },
    depositConfirmations: async () => {
      throw new Error('never asked: nothing was mined');
    },
  });

  it('completes refused as not found when the hash never appears within the receipt wait (an outcome, not a failure)', async () => {
    let looks = 0;
    const { result, failure, status } = await harness.run({
      txHash: newHash(),
      receiptWaitSeconds: 120,
      chain: unknownHash(() => (looks += 1)),
    });
    expect(failure).toBeUndefined();
    expect(status).toBe('COMPLETED');
    expect(result).toEqual({ outcome: 'rejected', reason: 'not_found' });
    // Looked at again on a growing interval (1 s ×1.5 up to 15 s) for the 120 s wait, not in a busy loop.
    expect(looks).toBeGreaterThan(5);
    expect(looks).toBeLessThan(20);
  });

  it('looks a refused hash up once when it is claimed again: refused at once, no second wait', async () => {
    let looks = 0;
    const { result, history } = await harness.run({
      txHash: newHash(),
      receiptWaitSeconds: 120,
      recheck: true,
      chain: unknownHash(() => (looks += 1)),
    });
    expect(result).toEqual({ outcome: 'rejected', reason: 'not_found' });
    expect(looks).toBe(1);
    expect(timers(history)).toBe(0);
  });
});

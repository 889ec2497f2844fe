// The deposit credit activity against real PostgreSQL: what it reports as the agent's new balance.
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDepositActivities } from '../../activities/deposit.activities.ts';
import { loadConfig } from '../../src/config/config.ts';
import { recordDeposit } from '../../src/deposits/deposits.ts';
import { getAccountSummary } from '../../src/accounts/accounts.ts';
import { reserve } from '../../src/ledger/ledger.ts';
import { formatUsd } from '../../src/domain/money.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { depositStarter } from '../../src/use-cases/temporal/worker-starter.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe('creditDeposit', () => {
  it("reports new_balance as the agent's balance, what running tasks hold included (as GET /agents/balance)", async () => {
    const accountId = await createFundedAccount(database.prisma, { kind: 'agent', deposit: 1_000_000n });
    await reserve(database.prisma, {
      accountId,
      amount: 400_000n,
      taskId: 'gen_running',
      idempotencyKey: `gen_running:${accountId}:reserve`,
    });
    const facts = {
      chain: 'base' as const,
      txHash: `0x${'ab'.repeat(32)}`,
      blockNumber: '7',
      transfers: [
        {
          transferIndex: 0,
          logIndex: 0,
          from: `0x${'1'.repeat(40)}`,
          to: `0x${'2'.repeat(40)}`,
          amount: '2500000',
          accountId,
        },
      ],
    };
    await recordDeposit(database.prisma, facts, 'confirmed');
    const { creditDeposit } = createDepositActivities({
      prisma: database.prisma,
      config: loadConfig({}, []),
      starter: depositStarter({ config: loadConfig({}, []) }),
    });

    const credited = await new MockActivityEnvironment().run(creditDeposit, facts);

    const summary = await getAccountSummary(database.prisma, accountId);
    expect(summary).toMatchObject({ balance: 3_500_000n, reserved: 400_000n });
    const new_balance = formatUsd(summary.balance);
    expect(credited).toEqual([
      {
        accountId,
        amount_usd: '2.50',
        new_balance,
        deposits: [expect.objectContaining({ status: 'credited', amount_usd: '2.50', new_balance })],
      },
    ]);
  });

  it('ends at once on a ledger refusal: a non-retryable LedgerError, never an hour of retries', async () => {
    const accountId = await createFundedAccount(database.prisma, { kind: 'agent' });
    // A zero amount, as a zero-value transfer would have been kept: credit() refuses it, and would on every retry.
    const facts = {
      chain: 'base' as const,
      txHash: `0x${'cd'.repeat(32)}`,
      blockNumber: '7',
      transfers: [
        {
          transferIndex: 0,
          logIndex: 0,
          from: `0x${'1'.repeat(40)}`,
          to: `0x${'3'.repeat(40)}`,
          amount: '0',
          accountId,
        },
      ],
    };
    await recordDeposit(database.prisma, facts, 'confirmed');
    const { creditDeposit } = createDepositActivities({
      prisma: database.prisma,
      config: loadConfig({}, []),
      starter: depositStarter({ config: loadConfig({}, []) }),
    });

    const failure = await new MockActivityEnvironment().run(creditDeposit, facts).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'LedgerError', nonRetryable: true });
  });
});

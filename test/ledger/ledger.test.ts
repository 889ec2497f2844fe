// The money core against real PostgreSQL: each operation twice moves money once; concurrency never oversells.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  charge,
  credit,
  InsufficientFundsError,
  LedgerError,
  ledgerTotals,
  release,
  reserve,
} from '../../src/ledger/ledger.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const usd = (amount: number) => BigInt(Math.round(amount * 1_000_000));

async function balanceRow(accountId: string) {
  return database.prisma.balance.findUniqueOrThrow({ where: { accountId } });
}

/** DESIGN §3's invariant: the ledger sums equal the balance row. */
async function expectLedgerMatchesBalance(accountId: string) {
  const [row, totals] = await Promise.all([balanceRow(accountId), ledgerTotals(database.prisma, accountId)]);
  expect({ balance: totals.balance, reserved: totals.reserved }).toEqual({
    balance: row.balance,
    reserved: row.reserved,
  });
}

describe('each operation, called twice with the same key, moves money once', () => {
  it('credit', async () => {
    const accountId = await createFundedAccount(database.prisma);
    const first = await credit(database.prisma, {
      accountId,
      amount: usd(5),
      kind: 'adjustment',
      idempotencyKey: `credit:${accountId}`,
    });
    const second = await credit(database.prisma, {
      accountId,
      amount: usd(5),
      kind: 'adjustment',
      idempotencyKey: `credit:${accountId}`,
    });
    expect(first).toMatchObject({ applied: true, balance: usd(5) });
    expect(second).toMatchObject({ applied: false, balance: usd(5), entryId: first.entryId });
    expect((await balanceRow(accountId)).balance).toBe(usd(5));
    await expectLedgerMatchesBalance(accountId);
  });

  it('reserve, then charge less than reserved releases the rest', async () => {
    const accountId = await createFundedAccount(database.prisma);
    await credit(database.prisma, {
      accountId,
      amount: usd(10),
      kind: 'deposit',
      idempotencyKey: `deposit:${accountId}`,
    });
    for (let i = 0; i < 2; i++) {
      await reserve(database.prisma, { accountId, amount: usd(2), taskId: 'gen_a', idempotencyKey: 'gen_a:reserve' });
    }
    expect(await balanceRow(accountId)).toMatchObject({ balance: usd(10), reserved: usd(2) });
    const results = [];
    for (let i = 0; i < 2; i++) {
      results.push(
        await charge(database.prisma, { accountId, amount: usd(0.5), taskId: 'gen_a', idempotencyKey: 'gen_a:charge' }),
      );
    }
    expect(results.map((result) => result.applied)).toEqual([true, false]);
    expect(await balanceRow(accountId)).toMatchObject({ balance: usd(9.5), reserved: 0n });
    expect((await ledgerTotals(database.prisma, accountId)).spent).toBe(usd(0.5));
    await expectLedgerMatchesBalance(accountId);
  });

  it('reserve, then release returns everything', async () => {
    const accountId = await createFundedAccount(database.prisma);
    await credit(database.prisma, {
      accountId,
      amount: usd(3),
      kind: 'deposit',
      idempotencyKey: `deposit:${accountId}`,
    });
    await reserve(database.prisma, { accountId, amount: usd(1.25), taskId: 'gen_b', idempotencyKey: 'gen_b:reserve' });
    const first = await release(database.prisma, { accountId, taskId: 'gen_b', idempotencyKey: 'gen_b:release' });
    const second = await release(database.prisma, { accountId, taskId: 'gen_b', idempotencyKey: 'gen_b:release' });
    expect([first.applied, second.applied]).toEqual([true, false]);
    expect(first.reservedDelta).toBe(-usd(1.25));
    expect(await balanceRow(accountId)).toMatchObject({ balance: usd(3), reserved: 0n });
    await expectLedgerMatchesBalance(accountId);
  });
});

describe('refusals', () => {
  it('reserve beyond the available balance fails with what is available, and moves nothing', async () => {
    const accountId = await createFundedAccount(database.prisma);
    await credit(database.prisma, {
      accountId,
      amount: usd(1),
      kind: 'deposit',
      idempotencyKey: `deposit:${accountId}`,
    });
    await reserve(database.prisma, {
      accountId,
      amount: usd(0.75),
      taskId: 'gen_c1',
      idempotencyKey: 'gen_c1:reserve',
    });
    const refused = reserve(database.prisma, {
      accountId,
      amount: usd(0.5),
      taskId: 'gen_c2',
      idempotencyKey: 'gen_c2:reserve',
    });
    await expect(refused).rejects.toBeInstanceOf(InsufficientFundsError);
    await expect(refused).rejects.toMatchObject({ required: usd(0.5), available: usd(0.25) });
    expect(await database.prisma.ledgerEntry.count({ where: { idempotencyKey: 'gen_c2:reserve' } })).toBe(0);
    await expectLedgerMatchesBalance(accountId);
  });

  it('a charge above what the task holds is refused', async () => {
    const accountId = await createFundedAccount(database.prisma);
    await credit(database.prisma, {
      accountId,
      amount: usd(5),
      kind: 'deposit',
      idempotencyKey: `deposit:${accountId}`,
    });
    await reserve(database.prisma, { accountId, amount: usd(1), taskId: 'gen_d', idempotencyKey: 'gen_d:reserve' });
    await expect(
      charge(database.prisma, { accountId, amount: usd(1.01), taskId: 'gen_d', idempotencyKey: 'gen_d:charge' }),
    ).rejects.toThrow(/exceeds the 1000000 held/);
    await release(database.prisma, { accountId, taskId: 'gen_d', idempotencyKey: 'gen_d:release' });
    // Released first: nothing is held any more, so a late charge cannot take money.
    await expect(
      charge(database.prisma, { accountId, amount: usd(0.1), taskId: 'gen_d', idempotencyKey: 'gen_d:charge' }),
    ).rejects.toThrow(LedgerError);
    await expectLedgerMatchesBalance(accountId);
  });

  it('an idempotency key reused for another operation is an error, not a silent success', async () => {
    const accountId = await createFundedAccount(database.prisma);
    await credit(database.prisma, { accountId, amount: usd(1), kind: 'deposit', idempotencyKey: 'shared-key' });
    await expect(
      reserve(database.prisma, { accountId, amount: usd(1), taskId: 'gen_e', idempotencyKey: 'shared-key' }),
    ).rejects.toThrow(/already used for a different operation \(deposit/);
  });

  it('a repeat must be the same request: another task or amount under a used key is refused', async () => {
    const accountId = await createFundedAccount(database.prisma);
    await credit(database.prisma, {
      accountId,
      amount: usd(5),
      kind: 'deposit',
      idempotencyKey: `deposit:${accountId}`,
    });
    await reserve(database.prisma, { accountId, amount: usd(1), taskId: 'gen_f', idempotencyKey: 'gen_f:reserve' });
    await expect(
      reserve(database.prisma, { accountId, amount: usd(1), taskId: 'gen_g', idempotencyKey: 'gen_f:reserve' }),
    ).rejects.toThrow(LedgerError);
    await expect(
      reserve(database.prisma, { accountId, amount: usd(2), taskId: 'gen_f', idempotencyKey: 'gen_f:reserve' }),
    ).rejects.toThrow(LedgerError);
    await expect(
      credit(database.prisma, { accountId, amount: usd(6), kind: 'deposit', idempotencyKey: `deposit:${accountId}` }),
    ).rejects.toThrow(LedgerError);
    await expectLedgerMatchesBalance(accountId);
  });

  it.each([0n, -1n])('refuses a non-positive credit or reserve (%s)', async (amount) => {
    await expect(
      credit(database.prisma, { accountId: 'x', amount, kind: 'adjustment', idempotencyKey: 'k' }),
    ).rejects.toThrow(LedgerError);
    await expect(
      reserve(database.prisma, { accountId: 'x', amount, taskId: 't', idempotencyKey: 'k' }),
    ).rejects.toThrow(LedgerError);
  });
});

describe('concurrency', () => {
  it('100 concurrent reserves of 1.00 against 10.00 admit exactly 10; repeating them changes nothing', async () => {
    const accountId = await createFundedAccount(database.prisma);
    await credit(database.prisma, {
      accountId,
      amount: usd(10),
      kind: 'deposit',
      idempotencyKey: `deposit:${accountId}`,
    });
    const attempt = (i: number) =>
      reserve(database.prisma, {
        accountId,
        amount: usd(1),
        taskId: `gen_${i}`,
        idempotencyKey: `gen_${i}:reserve`,
      }).then(
        (result) => ({ i, admitted: true, applied: result.applied }),
        (error: unknown) => {
          if (!(error instanceof InsufficientFundsError)) throw error;
          return { i, admitted: false, applied: false };
        },
      );
    const indexes = Array.from({ length: 100 }, (_, i) => i);

    const first = await Promise.all(indexes.map(attempt));
    const admitted = first.filter((result) => result.admitted).map((result) => result.i);
    expect(admitted).toHaveLength(10);
    expect(await balanceRow(accountId)).toMatchObject({ balance: usd(10), reserved: usd(10) });
    await expectLedgerMatchesBalance(accountId);

    const entriesBefore = await database.prisma.ledgerEntry.count({ where: { accountId } });
    const again = await Promise.all(indexes.map(attempt));
    // The admitted ones find their entries; the refused ones are refused again (nothing is available).
    expect(
      again
        .filter((result) => result.admitted)
        .map((result) => result.i)
        .sort(),
    ).toEqual([...admitted].sort());
    expect(again.every((result) => !result.applied)).toBe(true);
    expect(await database.prisma.ledgerEntry.count({ where: { accountId } })).toBe(entriesBefore);
    expect(await balanceRow(accountId)).toMatchObject({ balance: usd(10), reserved: usd(10) });
    await expectLedgerMatchesBalance(accountId);
  });

  it('a reserve and a charge retried while the first attempt is still running return the first result', async () => {
    const accountId = await createFundedAccount(database.prisma);
    await credit(database.prisma, {
      accountId,
      amount: usd(1),
      kind: 'deposit',
      idempotencyKey: `deposit:${accountId}`,
    });
    // Racing duplicates of one reserve that takes everything available: the copies must not see "insufficient".
    const reserves = await Promise.all(
      Array.from({ length: 10 }, () =>
        reserve(database.prisma, { accountId, amount: usd(1), taskId: 'gen_r', idempotencyKey: 'gen_r:reserve' }),
      ),
    );
    expect(reserves.filter((result) => result.applied)).toHaveLength(1);
    // Racing duplicates of one charge: the copies must not find "nothing held".
    const charges = await Promise.all(
      Array.from({ length: 10 }, () =>
        charge(database.prisma, { accountId, amount: usd(0.4), taskId: 'gen_r', idempotencyKey: 'gen_r:charge' }),
      ),
    );
    expect(charges.filter((result) => result.applied)).toHaveLength(1);
    expect(await balanceRow(accountId)).toMatchObject({ balance: usd(0.6), reserved: 0n });
    await expectLedgerMatchesBalance(accountId);
  });

  it('the same key racing from many callers moves money once', async () => {
    const accountId = await createFundedAccount(database.prisma);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        credit(database.prisma, {
          accountId,
          amount: usd(1),
          kind: 'deposit',
          idempotencyKey: `deposit:base:0xabc:${accountId}`,
        }),
      ),
    );
    expect(results.filter((result) => result.applied)).toHaveLength(1);
    expect((await balanceRow(accountId)).balance).toBe(usd(1));
    await expectLedgerMatchesBalance(accountId);
  });
});

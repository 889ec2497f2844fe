// The registered list finds a payer's method by its kind, and a task's method by what its workflow input carries.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import type { PrismaClient } from '../../../src/db/prisma.ts';
import { IdempotencyKeyReusedError, PaymentReusedError } from '../../../src/domain/errors.ts';
import { admissionOf, paymentDescription, paymentKindOf } from '../../../src/payments/methods/registered.ts';
import type { PaidBy } from '../../../src/payments/methods/payment-method.ts';

const config = loadConfig({}, []);
const noDatabase = {} as PrismaClient;
const balancePaid: PaidBy = { taskId: 'gen_1', accountId: 'acc_1', idempotencyKey: null };
const x402Paid = { ...balancePaid, payment: { payer: '0xabc' } } as PaidBy;

describe('registered payment methods', () => {
  it("admits a balance payer by its account, and an x402 payer as a wallet's, each with its own errors", async () => {
    const balance = admissionOf(
      { config },
      { kind: 'balance', account: { id: 'acc_1', kind: 'agent' }, idempotencyKey: null },
    );
    expect(balance).toMatchObject({ accountKind: 'agent', uploadsOwner: 'acc_1', handsAccess: false });
    expect(balance.reusedError()).toBeInstanceOf(IdempotencyKeyReusedError);
    // Without a key, no earlier task can be named: the database is not asked.
    await expect(balance.earlierTask(noDatabase)).resolves.toBeNull();

    const x402 = admissionOf(
      { config },
      { kind: 'x402', headers: {}, resourceUrl: 'http://localhost/api/v1/generations' },
    );
    expect(x402).toMatchObject({ accountKind: 'wallet', uploadsOwner: null, handsAccess: true });
    expect(x402.reusedError()).toBeInstanceOf(PaymentReusedError);
    // No payment offered yet: nothing names a task.
    await expect(x402.earlierTask(noDatabase)).resolves.toBeNull();
  });

  it('names the method a task was paid with, as its search attribute and summary say', () => {
    expect(paymentKindOf(balancePaid)).toBe('balance');
    expect(paymentDescription(balancePaid)).toBe('from the balance');
    expect(paymentKindOf(x402Paid)).toBe('x402');
    expect(paymentDescription(x402Paid)).toBe('paid with x402 by 0xabc');
  });
});

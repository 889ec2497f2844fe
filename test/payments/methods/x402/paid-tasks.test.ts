// Admitting x402-paid tasks against a real database: a payment whose authorization or payment id another task holds
// (twins under two task ids racing) is refused naming that task, writing nothing; the row gives back the authorization.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../../src/domain/ids.ts';
import {
  admitPaidTask,
  findPaidTask,
  PaymentTakenError,
  storedAuthorization,
  walletAccountId,
  type X402Authorization,
} from '../../../../src/payments/methods/x402/paid-tasks.ts';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

const payer = `0x${'a1'.repeat(20)}`;

const authorization = (overrides: Partial<X402Authorization> = {}): X402Authorization => ({
  scheme: 'exact',
  network: 'eip155:84532',
  asset: `0x${'cc'.repeat(20)}`,
  payer,
  payTo: `0x${'bb'.repeat(20)}`,
  nonce: `0x${'01'.repeat(32)}`,
  amount: '500',
  validBefore: '4102444800',
  payload: { x402Version: 2, payload: { signature: '0x01' } },
  requirement: { scheme: 'exact' },
  maxTasksInFlight: 5,
  ...overrides,
});

const admit = (taskId: string, payment: X402Authorization) =>
  admitPaidTask(database.prisma, {
    taskId,
    accountId: walletAccountId(payer),
    request: { type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello.' },
    costMicros: 500n,
    idempotencyKey: null,
    payment,
  });

describe('admitting a paid task', () => {
  it('keeps the payment id, finds the task by it, and gives back the authorization it was admitted with', async () => {
    const paid = authorization({ paymentId: 'pay_0123456789abcdef0123' });
    const taskId = newId('gen');
    await admit(taskId, paid);
    expect((await admit(taskId, paid)).id).toBe(taskId);
    const found = await findPaidTask(database.prisma, {
      payer_paymentId: { payer, paymentId: 'pay_0123456789abcdef0123' },
    });
    expect(found).toMatchObject({ id: taskId, payment: { taskId, paymentId: 'pay_0123456789abcdef0123' } });
    expect(storedAuthorization(found!.payment, 5)).toEqual(paid);
  });

  it.each([
    ['payment id', '02', { nonce: `0x${'03'.repeat(32)}` }],
    ['authorization', '04', { paymentId: 'pay_another_id_0123456789' }],
  ])('refuses a payment whose %s pays another task, naming it, and writes nothing', async (_, byte, twin) => {
    const first = authorization({ nonce: `0x${byte.repeat(32)}`, paymentId: `pay_raced_id_${byte}_0123456789` });
    const winner = newId('gen');
    await admit(winner, first);
    const loser = newId('gen');
    const refused = admit(loser, { ...first, ...twin });
    await expect(refused).rejects.toThrow(PaymentTakenError);
    await expect(refused).rejects.toMatchObject({ taskId: winner });
    expect(await database.prisma.task.findUnique({ where: { id: loser } })).toBeNull();
    expect(await database.prisma.x402Payment.count({ where: { taskId: winner } })).toBe(1);
  });
});

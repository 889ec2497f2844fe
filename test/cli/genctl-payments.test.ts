// genctl payments list, and a wallet account's refusal of API keys: the real command line against a test database
// holding x402 payments admitted through the service (admitPaidTask), in several states.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitPaidTask, walletAccountId, type X402Authorization } from '../../src/payments/methods/x402/paid-tasks.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { runGenctl } from '../helpers/genctl.ts';

let database: TestDatabase;
const genctl = (...args: string[]) => runGenctl({ DATABASE_URL: database.url }, args);
const alice = '0x' + 'a1'.repeat(20);
const bob = '0x' + 'b2'.repeat(20);

function authorization(payer: string, nonceDigit: string): X402Authorization {
  return {
    scheme: 'exact',
    network: 'eip155:8453',
    asset: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
    payer,
    payTo: '0x98e503f35d0a019cb0a251ad243a4ccfcf371f46',
    nonce: `0x${nonceDigit.repeat(64)}`,
    amount: '45000',
    validBefore: '4102444800',
    payload: { note: 'stored as received' },
    requirement: { scheme: 'exact' },
    maxTasksInFlight: 5,
  };
}

async function admit(taskId: string, payer: string, nonceDigit: string) {
  await admitPaidTask(database.prisma, {
    taskId,
    accountId: walletAccountId(payer),
    request: { type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello.' },
    costMicros: 45_000n,
    idempotencyKey: null,
    payment: authorization(payer, nonceDigit),
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  await admit('gen_paid1', alice, '1');
  await admit('gen_paid2', bob, '2');
  await database.prisma.x402Payment.update({
    where: { taskId: 'gen_paid1' },
    data: { status: 'settled', amountSettled: 45_000n, transaction: `0x${'c'.repeat(64)}`, settledAt: new Date() },
  });
});
afterAll(() => database?.drop());

describe('genctl payments list', () => {
  it('lists x402 payments newest first, by payer and by status', async () => {
    const all = await genctl('payments', 'list', '--json');
    expect(all.code, all.stderr).toBe(0);
    expect(all.json.payments.map((payment: any) => payment.task_id)).toEqual(['gen_paid2', 'gen_paid1']);
    expect(all.json.payments[1]).toMatchObject({
      account_id: walletAccountId(alice),
      payer: alice,
      scheme: 'exact',
      network: 'eip155:8453',
      amount_usd: '0.045',
      amount_settled_usd: '0.045',
      status: 'settled',
      transaction: `0x${'c'.repeat(64)}`,
    });
    const ofBob = await genctl('payments', 'list', '--payer', bob.toUpperCase().replace('0X', '0x'), '--json');
    expect(ofBob.json.payments.map((payment: any) => payment.task_id)).toEqual(['gen_paid2']);
    const settled = await genctl('payments', 'list', '--status', 'settled');
    expect(settled.stdout).toMatch(/^gen_paid1 {2}0xa1a1.* {2}eip155:8453 {2}0\.045 USD {2}settled /);
    const wrong = await genctl('payments', 'list', '--status', 'paid');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--status must be one of authorized, settling, settled, failed, abandoned/);
  });

  it('refuses an API key for a wallet account', async () => {
    const refused = await genctl('keys', 'create', '--account', walletAccountId(alice));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/x402 payer's wallet: it pays per request and takes no API key/);
  });
});

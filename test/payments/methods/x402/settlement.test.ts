// Settling x402 payments against a real database and a real local chain, with payloads from x402's own client: the
// chain decides after a failed settle, and money that moved for a task that failed is recorded as owed back.
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../../../src/config/config.ts';
import { newId } from '../../../../src/domain/ids.ts';
import { admitPaidTask, walletAccountId } from '../../../../src/payments/methods/x402/paid-tasks.ts';
import { failTask } from '../../../../src/generations/tasks.ts';
import { settleTaskPayment } from '../../../../src/payments/methods/x402/settlement.ts';
import { paymentMethods } from '../../../../src/payments/methods/registered.ts';
import { configuredFacilitator } from '../../../../src/payments/methods/x402/facilitator.ts';
import { paymentIdentity } from '../../../../src/payments/methods/x402/payment-header.ts';
import { paymentRequirementsFor } from '../../../../src/payments/methods/x402/requirements.ts';
import { chainSettingsOf, useLocalChain, x402OnLocalChain } from '../../../helpers/chain.ts';
import { mergeConfig } from '../../../helpers/config.ts';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.ts';
import { pay } from '../../../../harness/x402-paying-client.ts';

const chain = useLocalChain();
const price = 20_000n;
let database: TestDatabase;
let deps: Parameters<typeof settleTaskPayment>[0];
let config: Config;

beforeAll(async () => {
  database = await createTestDatabase();
  config = mergeConfig(loadConfig({}, []), x402OnLocalChain(chain));
  deps = { prisma: database.prisma, config, facilitator: configuredFacilitator(config) };
});
afterAll(() => database?.drop());

/** A task admitted on a real signed `exact` payment of `price` from a fresh payer holding `funds`. */
async function paidTask(funds = 1_000_000n): Promise<{ taskId: string; payer: LocalAccount }> {
  const payer = privateKeyToAccount(generatePrivateKey());
  await chain.mint(payer.address, funds);
  const required = paymentRequirementsFor({
    chains: [chainSettingsOf(chain)],
    payTo: config.x402.payTo,
    amountMicros: price,
    maxTimeoutSeconds: 600,
    resource: { url: 'http://gateway.test/api/v1/generations', description: 'one task', mimeType: 'text/plain' },
  });
  const { payload } = await pay(required, payer);
  const identity = paymentIdentity(payload)!;
  const requirement = required.accepts[0]! satisfies PaymentRequirements;
  const taskId = newId('gen');
  await admitPaidTask(database.prisma, {
    taskId,
    accountId: walletAccountId(payer.address),
    request: { type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello.' },
    costMicros: price,
    idempotencyKey: null,
    payment: {
      scheme: 'exact',
      network: requirement.network,
      asset: identity.asset,
      payer: identity.payer,
      payTo: requirement.payTo.toLowerCase(),
      nonce: identity.nonce,
      amount: price.toString(),
      validBefore: identity.validBefore.toString(),
      payload: payload satisfies PaymentPayload,
      requirement,
      maxTasksInFlight: 5,
    },
  });
  return { taskId, payer };
}

const ledgerOf = (payer: LocalAccount) =>
  database.prisma.ledgerEntry.findMany({
    where: { accountId: walletAccountId(payer.address) },
    orderBy: { id: 'asc' },
  });

describe('settleTaskPayment', () => {
  it('settles once; a second call (a retried activity) finds it settled and moves nothing', async () => {
    const { taskId } = await paidTask();
    const payTo = config.x402.payTo;
    const before = await chain.balanceOf(payTo);
    const settled = await settleTaskPayment(deps, { taskId, usedMicros: price });
    expect(settled).toMatchObject({ status: 'settled', amountSettled: price });
    expect(await settleTaskPayment(deps, { taskId, usedMicros: price })).toMatchObject({ status: 'settled' });
    expect(await chain.balanceOf(payTo)).toBe(before + price);
  });

  it('when the transfer landed but was never recorded, and the task has failed since: settled, and owed back', async () => {
    const { taskId, payer } = await paidTask();
    // The transfer lands (a worker's attempt), then the worker dies before recording it; the task fails meanwhile.
    const payment = await database.prisma.x402Payment.findUniqueOrThrow({ where: { taskId } });
    const moved = await deps.facilitator().settle(payment.payload as never, payment.requirement as never);
    expect(moved.success).toBe(true);
    await database.prisma.x402Payment.update({ where: { taskId }, data: { status: 'settling' } });
    await failTask(
      database.prisma,
      { taskId, error: 'The generation failed at the provider.' },
      paymentMethods.heldPaymentRules,
    );
    expect(await database.prisma.x402Payment.findUniqueOrThrow({ where: { taskId } })).toMatchObject({
      status: 'settling',
    });

    // A later attempt meets the spent nonce, finds that very transfer, and records what the chain says.
    const settled = await settleTaskPayment(deps, { taskId, usedMicros: price });
    expect(settled).toMatchObject({ status: 'settled', transaction: moved.transaction, amountSettled: price });
    expect((await ledgerOf(payer)).map(({ kind, amount, memo }) => ({ kind, amount, memo }))).toEqual([
      {
        kind: 'x402_payment',
        amount: price,
        memo: `${moved.transaction} settled after the task failed: owed back to the payer`,
      },
    ]);
  });

  it('a settled payment whose task then fails is credited as owed, once', async () => {
    const { taskId, payer } = await paidTask();
    await settleTaskPayment(deps, { taskId, usedMicros: price });
    await failTask(database.prisma, { taskId, error: 'The generation failed.' }, paymentMethods.heldPaymentRules);
    await failTask(database.prisma, { taskId, error: 'The generation failed.' }, paymentMethods.heldPaymentRules);
    const entries = await ledgerOf(payer);
    expect(entries.map(({ kind, amount }) => ({ kind, amount }))).toEqual([{ kind: 'x402_payment', amount: price }]);
    expect(entries[0]!.memo).toMatch(/settled, but the task failed: owed back to the payer$/);
  });
});

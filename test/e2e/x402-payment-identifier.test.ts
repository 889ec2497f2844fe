// x402's payment-identifier extension on a paid generation, on the real local chain with x402's own client: payments
// signed anew under one payment id are one task (looked up by the id before the nonce), one payment row, settled once
// (only the first authorization ever moves); the id for another body is 409; without an id, nothing changes.
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier';
import type { LocalAccount } from 'viem';
import { describe, expect, it } from 'vitest';
import { pay } from '../../harness/x402-paying-client.ts';
import { CreateGenerationBodySchema } from '../../src/api/resources/generations/generations.schemas.ts';
import { executeAdmitUpdate } from '../../src/use-cases/temporal/generation-workflows.ts';
import { admitPaidTask } from '../../src/payments/methods/x402/paid-tasks.ts';
import { matchRequirement, paymentIdentity } from '../../src/payments/methods/x402/payment-header.ts';
import { generationWorkflow } from '../../workflows/generation/generation.workflow.ts';
import { newPayer, useLocalChain, x402OnLocalChain } from '../helpers/chain.ts';
import { useGateway } from '../helpers/gateway.ts';
import { paidGenerationInput } from '../helpers/generation-input.ts';
import { type ApiResponse, call, waitForEnd } from '../helpers/http.ts';

const chain = useLocalChain();
const gateway = useGateway(() => x402OnLocalChain(chain));
const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Paid once under one payment id.' };

/** The requirements a body's 402 states. */
async function requiredFor(body: object): Promise<PaymentRequired> {
  const unpaid = await call(gateway, 'POST', '/generations', { body });
  expect(unpaid.status).toBe(402);
  return unpaid.body.requirements;
}

/** A payment signed anew by x402's client (a nonce of its own), under `paymentId` when given. */
async function signed(required: PaymentRequired, payer: LocalAccount, paymentId?: string): Promise<PaymentPayload> {
  const { payload } = await pay(required, payer);
  if (!paymentId) return payload;
  const extensions = appendPaymentIdentifierToExtensions(structuredClone(required.extensions ?? {}), paymentId);
  return { ...payload, extensions };
}

const postPaid = (payload: PaymentPayload, body: object = speech) =>
  call(gateway, 'POST', '/generations', {
    body,
    headers: { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) },
  });

const settled = (created: ApiResponse) =>
  waitForEnd(gateway, { key: created.body.access_token, pollUrl: created.body.poll_url, timeoutMs: 60_000 });

const priceOf = (created: ApiResponse) => BigInt(Math.round(created.body.cost * 1e6));

const paymentRows = (payer: LocalAccount) =>
  gateway.database.prisma.x402Payment.findMany({ where: { payer: payer.address.toLowerCase() } });

const nonceOf = (payload: PaymentPayload) =>
  (payload.payload as { authorization: { nonce: string } }).authorization.nonce.toLowerCase();

describe('a payment id on a paid generation', () => {
  it('makes a payment signed anew the same task: one row, the first payment settled, once', async () => {
    const payer = await newPayer(chain);
    const before = await chain.balanceOf(payer.address);
    const required = await requiredFor(speech);
    const paymentId = generatePaymentId();
    const [first, second, third] = [
      await signed(required, payer, paymentId),
      await signed(required, payer, paymentId),
      await signed(required, payer, paymentId),
    ];
    expect(new Set([first, second, third].map(nonceOf)).size).toBe(3);

    const created = await postPaid(first);
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const retried = await postPaid(second);
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    expect(retried.body.id).toBe(created.body.id);
    expect(await settled(created)).toMatchObject({ status: 'completed', payment: { status: 'settled' } });

    // After the task ended, another payment under the id still answers it (without its token), and moves nothing.
    const late = await postPaid(third);
    expect(late).toMatchObject({ status: 202, body: { id: created.body.id } });
    expect(late.body.access_token).toBeUndefined();
    const rows = await paymentRows(payer);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ taskId: created.body.id, paymentId, nonce: nonceOf(first), status: 'settled' });
    expect(await chain.balanceOf(payer.address)).toBe(before - priceOf(created));
  });

  it('makes two payments under one id sent at once one task, settled once', async () => {
    const payer = await newPayer(chain);
    const before = await chain.balanceOf(payer.address);
    const required = await requiredFor(speech);
    const paymentId = generatePaymentId();
    const payments = [await signed(required, payer, paymentId), await signed(required, payer, paymentId)];

    const answers = await Promise.all(payments.map((payment) => postPaid(payment)));
    expect(answers.map((answer) => answer.status)).toEqual([202, 202]);
    expect(answers[1]!.body.id).toBe(answers[0]!.body.id);
    const reader = answers.find((answer) => answer.body.access_token)!;
    expect(await settled(reader)).toMatchObject({ status: 'completed' });
    const rows = await paymentRows(payer);
    expect(rows).toHaveLength(1);
    expect(payments.map(nonceOf)).toContain(rows[0]!.nonce);
    expect(await chain.balanceOf(payer.address)).toBe(before - priceOf(reader));
  });

  it('verifies a payment signed anew while its task is queued, and answers it the task and its token', async () => {
    const payer = await newPayer(chain);
    const before = await chain.balanceOf(payer.address);
    const required = await requiredFor(speech);
    const paymentId = generatePaymentId();
    const first = await signed(required, payer, paymentId);
    // Admitted (its row committed) by a workflow that never got the admit update: the task stays queued.
    const input = paidGenerationInput(gateway, CreateGenerationBodySchema.parse(speech), {
      identity: paymentIdentity(first)!,
      requirement: matchRequirement(required.accepts, first)!,
      payload: first,
    });
    const admitted = await admitPaidTask(gateway.database.prisma, {
      ...input,
      costMicros: BigInt(input.costMicros),
      payment: input.payment!,
    });
    expect(admitted.payment?.paymentId).toBe(paymentId);
    await gateway.env.client.workflow.start(generationWorkflow, {
      workflowId: input.taskId,
      taskQueue: gateway.config.temporal.taskQueue,
      args: [input],
    });

    // Its payer must have signed it: a signature that recovers no one is refused, and nothing is admitted.
    const second = await signed(required, payer, paymentId);
    const { signature } = second.payload as { signature: string };
    const forged = { ...second, payload: { ...second.payload, signature: `${signature.slice(0, -4)}0000` } };
    expect((await postPaid(forged)).status).toBe(402);

    const retried = await postPaid(second);
    expect(retried).toMatchObject({
      status: 202,
      body: { id: input.taskId, access_token: admitted.payment?.accessToken },
    });
    expect(await settled(retried)).toMatchObject({ status: 'completed' });
    const rows = await paymentRows(payer);
    expect(rows).toMatchObject([{ taskId: input.taskId, nonce: nonceOf(first), status: 'settled' }]);
    expect(await chain.balanceOf(payer.address)).toBe(before - priceOf(retried));
  });

  it('for another body is 409: nothing is admitted or moved', async () => {
    const payer = await newPayer(chain);
    const paymentId = generatePaymentId();
    const created = await postPaid(await signed(await requiredFor(speech), payer, paymentId));
    expect(created.status).toBe(202);
    const other = { ...speech, prompt: 'Something else entirely.' };
    const reused = await postPaid(await signed(await requiredFor(other), payer, paymentId), other);
    expect(reused).toMatchObject({ status: 409, body: { error: 'conflict' } });
    expect(reused.body.message).toMatch(/already used for a different request/);
    await settled(created);
    expect(await paymentRows(payer)).toHaveLength(1);
  });

  it('refuses at once a twin of an admitted payment under another id (a race it lost): 503, nothing written', async () => {
    const payer = await newPayer(chain);
    const required = await requiredFor(speech);
    const first = await signed(required, payer, generatePaymentId());
    const created = await postPaid(first);
    expect(created.status).toBe(202);
    // The same signed authorization under another payment id names another task, whose admission finds it taken.
    const twin = {
      ...first,
      extensions: appendPaymentIdentifierToExtensions(structuredClone(required.extensions ?? {})),
    };
    const input = paidGenerationInput(gateway, CreateGenerationBodySchema.parse(speech), {
      identity: paymentIdentity(twin)!,
      requirement: matchRequirement(required.accepts, twin)!,
      payload: twin,
    });
    expect(input.taskId).not.toBe(created.body.id);
    const temporal = { client: gateway.env.client, taskQueue: gateway.config.temporal.taskQueue };
    expect(await executeAdmitUpdate(temporal, input, { accountKind: 'wallet' })).toEqual({ outcome: 'unavailable' });
    expect(await gateway.database.prisma.task.findUnique({ where: { id: input.taskId } })).toBeNull();
    // The retry of it answers the task its authorization pays.
    expect(await postPaid(twin)).toMatchObject({ status: 202, body: { id: created.body.id } });
    expect(await paymentRows(payer)).toHaveLength(1);
    await settled(created);
  });

  it('names nothing when absent: each payment is a task of its own, the same payment the same task', async () => {
    const payer = await newPayer(chain);
    const required = await requiredFor(speech);
    const [first, second] = [await signed(required, payer), await signed(required, payer)];
    const [a, b] = [await postPaid(first), await postPaid(second)];
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body.id).not.toBe(a.body.id);
    expect((await postPaid(first)).body.id).toBe(a.body.id);
    await Promise.all([settled(a), settled(b)]);
    expect((await paymentRows(payer)).map((row) => row.paymentId)).toEqual([null, null]);
  });
});

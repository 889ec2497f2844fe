// x402 end to end, on the real local chain with the real test token: a client built on @x402/fetch pays for one
// generation without an account; the payment is verified at admission and moved on chain only once the outputs are
// stored — never for a task that failed — and exactly once whatever is retried or crashes.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { verifyReceiptSignatureJWS } from '@x402/extensions/offer-receipt';
import type { PaymentPayload } from '@x402/core/types';
import { type Address, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { anvilDevAccount } from '../../src/chain/local-chain.ts';
import { developmentPayTo } from '../../src/config/config.ts';
import { CreateGenerationBodySchema } from '../../src/api/resources/generations/generations.schemas.ts';
import { admitPaidTask, walletAccountId } from '../../src/payments/methods/x402/paid-tasks.ts';
import { matchRequirement, paymentIdentity } from '../../src/payments/methods/x402/payment-header.ts';
import { generationWorkflow } from '../../workflows/generation/generation.workflow.ts';
import type { PaymentFacilitator } from '../../src/payments/methods/x402/facilitator.ts';
import { newPayer, useLocalChain, x402OnLocalChain } from '../helpers/chain.ts';
import { useGateway } from '../helpers/gateway.ts';
import { paidGenerationInput } from '../helpers/generation-input.ts';
import { type ApiResponse, call, waitForEnd } from '../helpers/http.ts';
import { openEventStream } from '../helpers/event-stream.ts';
import { startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';
import { startInputServer, wavTone } from '../helpers/media.ts';
import { pay, payingFetch } from '../../harness/x402-paying-client.ts';
import { type OpenAIStandIn, startOpenAIStandIn } from '../stand-ins/openai-compatible.ts';
import { x402Client } from '@x402/core/client';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { permit2Address } from '../../src/chain/permit2.ts';

const chain = useLocalChain();
let openai: OpenAIStandIn;
const gateway = useGateway(async () => {
  openai = await startOpenAIStandIn({
    png: Buffer.alloc(0),
    mp3: Buffer.alloc(0),
    transcript: { text: '', duration: 1 },
  });
  return {
    ...x402OnLocalChain(chain),
    providers: { openai: { baseUrl: openai.baseUrl, apiKey: 'sk-upstream-test' } },
  };
});
afterAll(() => openai?.close());
const payTo = developmentPayTo as Address;
const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Paid for with x402.' };

let realFacilitator: () => PaymentFacilitator;
beforeAll(() => {
  realFacilitator = gateway.facilitator;
});

/** The real facilitator, with `settle` wrapped (it gets the real one to call). */
const wrappingSettle =
  (
    settle: (
      real: PaymentFacilitator,
      ...args: Parameters<PaymentFacilitator['settle']>
    ) => ReturnType<PaymentFacilitator['settle']>,
  ) =>
  (): PaymentFacilitator => ({ ...realFacilitator(), settle: (...args) => settle(realFacilitator(), ...args) });

const network = () => `eip155:${chain.chainId}` as const;
const postUrl = () => `${gateway.app.url}/api/v1/generations`;

async function postWith(fetcher: typeof fetch, body: object): Promise<ApiResponse> {
  const response = await fetcher(postUrl(), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Pays `exact` with an @x402/fetch client. */
const payAndPost = (payer: LocalAccount, body: object = speech) =>
  postWith(payingFetch(payer, { network: network(), asset: chain.usdcAddress }), body);

/** Pays `upto` with an @x402/fetch client that speaks only upto (so it picks the upto offer of the 402). */
function payUptoAndPost(payer: LocalAccount, body: object = speech) {
  const client = new x402Client();
  client.register(network(), new UptoEvmScheme(payer));
  client.setSpendControls({
    allowedAssets: [{ network: network(), asset: chain.usdcAddress, maxAmountPerPayment: '10000000' }],
  });
  return postWith(wrapFetchWithPayment(fetch, client), body);
}

/** A payer of `upto`: Permit2 may move its tokens (one approval, so it holds ETH: an anvil dev account). */
async function uptoPayer(index: number): Promise<LocalAccount> {
  const payer = anvilDevAccount(index) as LocalAccount;
  await chain.mint(payer.address, 5_000_000n);
  await chain.approve(payer, permit2Address);
  return payer;
}

/** A signed payment for `body`'s requirements, to send by hand (retries, replays). */
async function paymentFor(payer: LocalAccount, body: object = speech): Promise<PaymentPayload> {
  const unpaid = await call(gateway, 'POST', '/generations', { body });
  expect(unpaid.status).toBe(402);
  return (await pay(unpaid.body.requirements, payer)).payload;
}

const postPaid = (payload: PaymentPayload, body: object = speech, header = 'PAYMENT-SIGNATURE') =>
  call(gateway, 'POST', '/generations', { body, headers: { [header]: encodePaymentSignatureHeader(payload) } });

const settle = (created: ApiResponse) =>
  waitForEnd(gateway, { key: created.body.access_token, pollUrl: created.body.poll_url, timeoutMs: 60_000 });

const priceMicros = (created: ApiResponse) => BigInt(Math.round(created.body.cost * 1e6));

describe('a generation paid with x402', () => {
  it('402 → paid by @x402/fetch → 202 → completed, and exactly the price moved from payer to payTo', async () => {
    const payer = await newPayer(chain);
    const [payerBefore, payToBefore] = [await chain.balanceOf(payer.address), await chain.balanceOf(payTo)];

    const created = await payAndPost(payer);
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^gen_/),
      status: 'queued',
      poll_url: `/api/v1/generations/${created.body.id}`,
      access_token: expect.stringMatching(/^tt_[0-9A-Za-z]{43}$/),
    });
    expect(created.body.webhook_secret).toBeUndefined();
    const price = priceMicros(created);

    const task = await settle(created);
    expect(task).toMatchObject({
      status: 'completed',
      cost: created.body.cost,
      outputs: [expect.stringMatching(/^http/)],
      payment: {
        method: 'x402',
        scheme: 'exact',
        network: network(),
        payer: payer.address.toLowerCase(),
        amount: created.body.cost,
        amount_settled: created.body.cost,
        transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        status: 'settled',
      },
    });
    expect(await chain.balanceOf(payer.address)).toBe(payerBefore - price);
    expect(await chain.balanceOf(payTo)).toBe(payToBefore + price);
    expect((await fetch(task.outputs[0])).status).toBe(200);
    // Reading the settled task also answers x402's settlement response, under both header names.
    const read = await call(gateway, 'GET', created.body.poll_url, { key: created.body.access_token });
    const settlement = decodePaymentResponseHeader(read.headers.get('payment-response') ?? '');
    expect(settlement).toMatchObject({ success: true, transaction: task.payment.transaction, network: network() });
    expect(read.headers.get('x-payment-response')).toBe(read.headers.get('payment-response'));
    // The facilitator's account sent the transaction and paid its gas; the payer holds no ETH at all.
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: task.payment.transaction });
    expect(receipt.from.toLowerCase()).not.toBe(payer.address.toLowerCase());

    // The payment is in the ledger of the payer's wallet account: credited and charged in one go.
    const entries = await gateway.database.prisma.ledgerEntry.findMany({
      where: { accountId: walletAccountId(payer.address) },
      orderBy: { id: 'asc' },
    });
    expect(entries.map(({ kind, amount, memo }) => ({ kind, amount, memo }))).toEqual([
      { kind: 'x402_payment', amount: price, memo: task.payment.transaction },
      { kind: 'reserve', amount: 0n, memo: null },
      { kind: 'charge', amount: -price, memo: null },
    ]);
    const account = await gateway.database.prisma.account.findUniqueOrThrow({
      where: { id: walletAccountId(payer.address) },
      include: { balance: true },
    });
    expect(account).toMatchObject({ kind: 'wallet', balance: { balance: 0n, reserved: 0n } });
  });

  it('its access_token reads that task (and its event stream) only: another task is 404, any other endpoint 401', async () => {
    const first = await payAndPost(await newPayer(chain));
    const second = await payAndPost(await newPayer(chain));
    expect([first.status, second.status]).toEqual([202, 202]);
    const token = first.body.access_token;
    expect((await call(gateway, 'GET', first.body.poll_url, { key: token })).status).toBe(200);
    expect((await call(gateway, 'GET', `/predictions/${first.body.id}/result`, { key: token })).status).toBe(200);
    const other = await call(gateway, 'GET', second.body.poll_url, { key: token });
    expect(other).toMatchObject({ status: 404, body: { error: 'not_found' } });
    for (const path of ['/account/balance', '/agents/balance', '/account/webhook-secret']) {
      const refused = await call(gateway, 'GET', path, { key: token });
      expect(refused.status).toBe(401);
      expect(refused.body.message).toMatch(/reads its own task only/);
    }
    const unknown = await call(gateway, 'GET', first.body.poll_url, { key: `tt_${'0'.repeat(43)}` });
    expect(unknown.status).toBe(401);
    await Promise.all([settle(first), settle(second)]);

    // Its event stream too (issue 29): the task's events, the last one the task as the token reads it; another task's
    // stream is 404, the account stream and no key 401.
    const stream = await openEventStream(gateway, `/generations/${first.body.id}/events`, { key: token });
    const events = await stream.rest();
    expect(events.map((event) => event.event).filter((type) => type !== 'progress')).toEqual([
      'queued',
      'processing',
      'completed',
    ]);
    expect(events.at(-1)!.data).toEqual((await call(gateway, 'GET', first.body.poll_url, { key: token })).body);
    expect(events.at(-1)!.data.payment).toMatchObject({ status: 'settled' });
    const foreign = await openEventStream(gateway, `/generations/${second.body.id}/events`, { key: token });
    expect(foreign).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const account = await openEventStream(gateway, '/events', { key: token });
    expect(account).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    expect(account.body.message).toMatch(/reads its own task only/);
    const anonymous = await openEventStream(gateway, `/generations/${first.body.id}/events`);
    expect(anonymous).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
  });

  it('the same payment sent again is the same task, settled once; for another body it is 409', async () => {
    const payer = await newPayer(chain);
    const payToBefore = await chain.balanceOf(payTo);
    const payload = await paymentFor(payer);
    const [a, b] = await Promise.all([postPaid(payload), postPaid(payload)]);
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body).toEqual(a.body);
    const task = await settle(a);
    expect(task.status).toBe('completed');
    const again = await postPaid(payload, speech, 'X-PAYMENT');
    expect(again).toMatchObject({ status: 202, body: { id: a.body.id, poll_url: a.body.poll_url } });
    expect(await chain.balanceOf(payTo)).toBe(payToBefore + priceMicros(a));

    const replay = await postPaid(payload, { ...speech, prompt: 'Something else entirely.' });
    expect(replay).toMatchObject({ status: 409, body: { error: 'conflict' } });
    expect(replay.body.message).toMatch(/already used for a different request/);
    expect(await chain.balanceOf(payTo)).toBe(payToBefore + priceMicros(a));
  });

  /** A paid task as admission commits it (payment verified, row and payment committed), its workflow started but
   *  never sent the admit update. */
  const paidTaskAwaitingAdmission = async (payer: LocalAccount) => {
    const unpaid = await call(gateway, 'POST', '/generations', { body: speech });
    const { payload } = await pay(unpaid.body.requirements, payer);
    const input = paidGenerationInput(gateway, CreateGenerationBodySchema.parse(speech), {
      identity: paymentIdentity(payload)!,
      requirement: matchRequirement(unpaid.body.requirements.accepts, payload)!,
      payload,
    });
    await admitPaidTask(gateway.database.prisma, {
      ...input,
      costMicros: BigInt(input.costMicros),
      payment: input.payment!,
    });
    await gateway.env.client.workflow.start(generationWorkflow, {
      workflowId: input.taskId,
      taskQueue: gateway.config.temporal.taskQueue,
      args: [input],
    });
    return { input, payload };
  };

  it('the same payment sent again finishes an admission whose update Temporal lost: run, settled once', async () => {
    const payer = await newPayer(chain);
    const payToBefore = await chain.balanceOf(payTo);
    // What the admit update's local activity committed before Temporal died, and a workflow that never got the update.
    const { input, payload } = await paidTaskAwaitingAdmission(payer);

    const retried = await postPaid(payload);
    expect(retried).toMatchObject({ status: 202, body: { id: input.taskId } });
    expect(await settle(retried)).toMatchObject({ status: 'completed' });
    expect(await chain.balanceOf(payTo)).toBe(payToBefore + priceMicros(retried));
  });

  it('its access_token cancels that task: failed "cancelled", the payment abandoned, nothing moved', async () => {
    const payer = await newPayer(chain);
    const [payerBefore, payToBefore] = [await chain.balanceOf(payer.address), await chain.balanceOf(payTo)];
    // A task held queued: admitted (payment verified, row committed), its workflow waiting for the admission.
    const { input } = await paidTaskAwaitingAdmission(payer);
    const { accessToken } = await gateway.database.prisma.x402Payment.findUniqueOrThrow({
      where: { taskId: input.taskId },
    });

    const another = await call(gateway, 'POST', `/generations/gen_${'0'.repeat(22)}/cancel`, { key: accessToken });
    expect(another).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const cancelled = await call(gateway, 'POST', `/generations/${input.taskId}/cancel`, { key: accessToken });
    // 200 once the cancel landed (usually within the call's wait), else 202: the token then reads the end.
    expect([200, 202]).toContain(cancelled.status);
    const task = await waitForEnd(gateway, { key: accessToken, pollUrl: `/generations/${input.taskId}` });
    expect(task).toMatchObject({ status: 'failed', error: 'cancelled', cost: 0, payment: { status: 'abandoned' } });
    expect(task.payment.transaction).toBeUndefined();
    expect(await chain.balanceOf(payer.address)).toBe(payerBefore);
    expect(await chain.balanceOf(payTo)).toBe(payToBefore);
    const entries = await gateway.database.prisma.ledgerEntry.count({
      where: { accountId: walletAccountId(payer.address) },
    });
    expect(entries).toBe(0);
  });

  it('reads the v1 header name X-PAYMENT, and signs the webhook with the secret it hands out', async () => {
    const receiver = await startReceiver();
    try {
      const payer = await newPayer(chain);
      const withWebhook = { ...speech, webhook_url: receiver.url };
      const created = await postPaid(await paymentFor(payer, withWebhook), withWebhook, 'X-PAYMENT');
      expect(created.status).toBe(202);
      expect(created.body).toMatchObject({
        webhook_secret: expect.stringMatching(/^whsec_/),
        signature_header: 'webhook-signature',
        signature_algorithm: 'hmac-sha256',
      });
      const task = await settle(created);
      expect(task.status).toBe('completed');
      await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(1);
      const event = verifyDelivery(created.body.webhook_secret, receiver.received[0]!);
      expect(event).toMatchObject({ event: 'generation.completed', data: { id: task.id, payment: task.payment } });
    } finally {
      await receiver.close();
    }
  });

  it('a repeat of the payment once its task has started answers the task without its token or webhook secret (issue 35, point 14)', async () => {
    const receiver = await startReceiver();
    try {
      const withWebhook = { ...speech, webhook_url: receiver.url };
      const payload = await paymentFor(await newPayer(chain), withWebhook);
      const first = await postPaid(payload, withWebhook);
      expect(first).toMatchObject({
        status: 202,
        body: { access_token: expect.stringMatching(/^tt_/), webhook_secret: expect.stringMatching(/^whsec_/) },
      });
      expect(await settle(first)).toMatchObject({ status: 'completed' });
      // The signature is public on chain once settled: whoever sends it again with the same body learns the task only.
      const replayed = await postPaid(payload, withWebhook);
      expect(replayed.status).toBe(202);
      expect(replayed.body).toMatchObject({
        id: first.body.id,
        status: expect.any(String),
        poll_url: first.body.poll_url,
      });
      for (const secret of ['access_token', 'webhook_secret', 'signature_header'])
        expect(replayed.body).not.toHaveProperty(secret);
      expect((await call(gateway, 'GET', first.body.poll_url)).status).toBe(401);
    } finally {
      await receiver.close();
    }
  });

  it('a task that fails costs nothing: no transfer, the payment abandoned', async () => {
    const payer = await newPayer(chain);
    const [payerBefore, payToBefore] = [await chain.balanceOf(payer.address), await chain.balanceOf(payTo)];
    const failing = { type: 'upscale', model: 'local/lanczos', image_url: `${gateway.app.url}/missing.png` };
    const created = await payAndPost(payer, failing);
    expect(created.status).toBe(202);
    const task = await settle(created);
    expect(task).toMatchObject({ status: 'failed', cost: 0, payment: { status: 'abandoned' } });
    expect(task.payment.transaction).toBeUndefined();
    expect(task.outputs).toBeUndefined();
    expect(await chain.balanceOf(payer.address)).toBe(payerBefore);
    expect(await chain.balanceOf(payTo)).toBe(payToBefore);
    const entries = await gateway.database.prisma.ledgerEntry.count({
      where: { accountId: walletAccountId(payer.address) },
    });
    expect(entries).toBe(0);
  });

  it('a payer who moves the funds away before settlement gets a failed task, and its outputs are never served', async () => {
    const payer = anvilDevAccount(7); // holds ETH, so it can move its tokens itself
    await chain.mint(payer.address, 2_000_000n);
    const payToBefore = await chain.balanceOf(payTo);
    let drained!: () => void;
    const drainedBeforeSettling = new Promise<void>((resolve) => {
      drained = resolve;
    });
    gateway.facilitator = wrappingSettle(async (real, payload, requirement) => {
      await drainedBeforeSettling;
      return real.settle(payload, requirement);
    });
    try {
      const created = await payAndPost(payer);
      expect(created.status).toBe(202);
      await chain.transfer({
        from: payer,
        to: anvilDevAccount(8).address,
        amount: await chain.balanceOf(payer.address),
      });
      drained();
      const task = await settle(created);
      expect(task).toMatchObject({ status: 'failed', cost: 0, payment: { status: 'failed' } });
      expect(task.error).toMatch(
        /^The x402 payment could not be settled: the payer's funds .*no longer cover it \(insufficient_funds\)/,
      );
      expect(task.outputs).toBeUndefined();
      expect(task.output).toBeUndefined();
      expect(await chain.balanceOf(payTo)).toBe(payToBefore);
      // The files were stored before settlement, under names the payer can guess: removed once the task failed,
      // and not served. Removed just after the task is marked failed, so it is waited for.
      await vi.waitFor(() => expect(existsSync(join(gateway.filesDir, task.id))).toBe(false), { timeout: 30_000 });
      const guessed = await fetch(`${gateway.app.url}/files/${task.id}/output-0.png`);
      expect(guessed.status).toBe(404);
    } finally {
      gateway.facilitator = realFacilitator;
    }
  });
});

describe('a model priced on its input’s length (issue 16)', () => {
  const recording = (url: string) => ({
    type: 'speech-to-text',
    model: 'openai/whisper-1',
    audio_url: `${url}/150s.wav`,
    duration: 1,
  });

  it('downloads nothing before a payment is verified: the 402 names the declared price', async () => {
    const inputs = await startInputServer({ '/150s.wav': { body: wavTone(150), contentType: 'audio/wav' } });
    try {
      const body = recording(inputs.url);
      const unpaid = await call(gateway, 'POST', '/generations', { body });
      expect(unpaid.status).toBe(402);
      // The declared second, billed as a minute × 0.006, in the token's base units.
      for (const offer of unpaid.body.requirements.accepts) expect(offer.amount).toBe('6000');
      // A payer without the funds signs for free: its payment fails verification, before anything is fetched.
      const broke = privateKeyToAccount(generatePrivateKey());
      const refused = await postPaid((await pay(unpaid.body.requirements, broke)).payload, body);
      expect(refused.status).toBe(402);
      expect(inputs.hits.get('/150s.wav') ?? 0).toBe(0);
    } finally {
      await inputs.close();
    }
  });

  it('a verified payment of the declared price is matched again on the measured one: 402 naming it, then paid', async () => {
    const inputs = await startInputServer({ '/150s.wav': { body: wavTone(150), contentType: 'audio/wav' } });
    try {
      const body = recording(inputs.url);
      const payer = await newPayer(chain);
      const declared = await postPaid(await paymentFor(payer, body), body);
      expect(declared.status).toBe(402);
      expect(declared.body).toMatchObject({
        error: 'payment_required',
        requirements: { error: 'payment_requirements_mismatch' },
      });
      // 3 minutes × 0.006, measured once the payment was verified.
      for (const offer of declared.body.requirements.accepts) expect(offer.amount).toBe('18000');
      expect(inputs.hits.get('/150s.wav')).toBeGreaterThan(0);
      const paid = await postPaid((await pay(declared.body.requirements, payer)).payload, body);
      expect(paid.status).toBe(202);
      expect(priceMicros(paid)).toBe(18_000n);
      // Settled before the test ends: later tests count what reaches payTo.
      expect(await settle(paid)).toMatchObject({ status: 'completed', cost: 0.018 });
    } finally {
      await inputs.close();
    }
  });
});

describe('a payer’s tasks in flight', () => {
  it('are capped (X402_MAX_TASKS_PER_PAYER): one more is 429 with Retry-After, and nothing is taken for it', async () => {
    const cap = gateway.config.x402.maxTasksPerPayer;
    const payer = await newPayer(chain, 10_000_000n);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Settlements wait, so the admitted tasks stay in flight while the next payment arrives.
    gateway.facilitator = wrappingSettle(async (real, payload, requirement) => {
      await held;
      return real.settle(payload, requirement);
    });
    try {
      const admitted = [];
      for (let i = 0; i < cap; i += 1) admitted.push(await payAndPost(payer, { ...speech, prompt: `Task ${i}.` }));
      expect(admitted.map((created) => created.status)).toEqual(Array(cap).fill(202));
      const payToBefore = await chain.balanceOf(payTo);
      const refused = await payAndPost(payer, { ...speech, prompt: 'One too many.' });
      expect(refused).toMatchObject({ status: 429, body: { error: 'rate_limited' } });
      expect(refused.body.message).toMatch(new RegExp(`already has ${cap} tasks queued or running`));
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      release();
      const ended = await Promise.all(admitted.map(settle));
      expect(ended.every((task) => task.status === 'completed')).toBe(true);
      const total = admitted.reduce((sum, created) => sum + priceMicros(created), 0n);
      expect(await chain.balanceOf(payTo)).toBe(payToBefore + total);
    } finally {
      release();
      gateway.facilitator = realFacilitator;
    }
  });
});

describe('upto: a text generation settles what it used', () => {
  it('authorizes the quote, moves only the tokens used (less), and charges exactly that', async () => {
    const payer = await uptoPayer(5);
    const [payerBefore, payToBefore] = [await chain.balanceOf(payer.address), await chain.balanceOf(payTo)];
    const body = { type: 'text-to-text', model: 'openai/qwen3-235b', prompt: 'Name a colour.', max_tokens: 2000 };

    const created = await payUptoAndPost(payer, body);
    expect(created.status).toBe(202);
    const authorized = priceMicros(created);

    const task = await settle(created);
    expect(task).toMatchObject({ status: 'completed', payment: { scheme: 'upto', status: 'settled' } });
    const settled = BigInt(Math.round(task.payment.amount_settled * 1e6));
    expect(settled).toBeGreaterThan(0n);
    expect(settled).toBeLessThan(authorized);
    expect(task.payment.amount).toBe(created.body.cost);
    expect(task.cost).toBe(task.payment.amount_settled);
    expect(await chain.balanceOf(payer.address)).toBe(payerBefore - settled);
    expect(await chain.balanceOf(payTo)).toBe(payToBefore + settled);
    const charge = await gateway.database.prisma.ledgerEntry.findFirstOrThrow({
      where: { taskId: task.id, kind: 'charge' },
    });
    expect(charge.amount).toBe(-settled);

    // The receipts say what moved: the one transfer, and what of the maximum was never taken, which no transfer
    // gave back, so it names no transaction (issue 55, point 18 a).
    const receipts = await call(gateway, 'GET', `/api/v1/generations/${task.id}/receipt`, {
      key: created.body.access_token,
    });
    expect(receipts.status).toBe(200);
    const [payment, refund] = receipts.body.receipts;
    expect(receipts.body.receipts).toHaveLength(2);
    expect(payment).toMatchObject({ kind: 'payment', transaction: task.payment.transaction });
    expect(refund).toMatchObject({ kind: 'refund', network: network() });
    expect(refund).not.toHaveProperty('transaction');
    const signed = await verifyReceiptSignatureJWS(refund.receipt);
    expect(signed).toMatchObject({ kind: 'refund', amount: String(authorized - settled) });
    expect(signed).not.toHaveProperty('transaction');
  });
});

describe('settlement survives a worker crash', () => {
  /** A facilitator whose settle stops at `stage` until the worker stops (and cancels the activity). */
  function stalling(
    stage: 'before sending' | 'after sending',
    reached: (transaction: string | undefined) => void,
  ): () => PaymentFacilitator {
    return wrappingSettle(async (real, payload, requirement) => {
      const sent = stage === 'after sending' ? await real.settle(payload, requirement) : undefined;
      reached(sent?.transaction);
      await Context.current().cancelled;
      throw new Error('unreachable: the worker stopped');
    });
  }

  it.each([
    ['exact', 'before sending'],
    ['exact', 'after sending'],
    ['upto', 'after sending'],
  ] as const)('%s: killed %s the transfer, the task still settles exactly once', async (scheme, stage) => {
    const payer = scheme === 'upto' ? await uptoPayer(4) : await newPayer(chain);
    const [payerBefore, payToBefore] = [await chain.balanceOf(payer.address), await chain.balanceOf(payTo)];
    let reached!: (transaction: string | undefined) => void;
    const stalled = new Promise<string | undefined>((resolve) => {
      reached = resolve;
    });
    gateway.facilitator = stalling(stage, reached);
    try {
      const created = scheme === 'upto' ? await payUptoAndPost(payer) : await payAndPost(payer);
      expect(created.status).toBe(202);
      const sent = await stalled;
      const moved = stage === 'after sending' ? priceMicros(created) : 0n;
      expect(await chain.balanceOf(payTo)).toBe(payToBefore + moved);
      gateway.facilitator = realFacilitator;
      await gateway.restartWorkers();
      const task = await settle(created);
      expect(task).toMatchObject({ status: 'completed', payment: { scheme, status: 'settled' } });
      expect(await chain.balanceOf(payTo)).toBe(payToBefore + priceMicros(created));
      expect(await chain.balanceOf(payer.address)).toBe(payerBefore - priceMicros(created));
      // After sending, the retry met the spent nonce and found that very transfer on chain.
      if (sent) expect(task.payment.transaction).toBe(sent);
      const receipt = await chain.publicClient.getTransactionReceipt({ hash: task.payment.transaction });
      expect(receipt.status).toBe('success');
    } finally {
      gateway.facilitator = realFacilitator;
    }
  });
});

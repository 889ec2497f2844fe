// Topping a balance up with x402 on the real local chain: @x402/fetch pays the 402 of POST /agents/topup, the
// workflow settles the payment and credits the balance once (a retry of the payment, or another payment under the same
// payment identifier, credits nothing more), the signed receipt verifies with the offer-receipt extension's own
// verifier through our DID document, and the balance then pays for generations with no other payment.
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import {
  extractJWSHeader,
  extractReceiptFromResponse,
  type JWSSignedOffer,
  type JWSSignedReceipt,
  verifyOfferSignatureJWS,
  verifyReceiptSignatureJWS,
} from '@x402/extensions/offer-receipt';
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier';
import type { LocalAccount } from 'viem';
import { describe, expect, it } from 'vitest';
import { pay, payingFetch } from '../../harness/x402-paying-client.ts';
import { anvilDevAccount } from '../../src/chain/local-chain.ts';
import {
  ensureTaskReconcilerSchedule,
  taskReconcilerScheduleId,
} from '../../src/use-cases/generations/task-reconciler.ts';
import { authorizeTopUp } from '../../src/payments/methods/x402/top-ups.ts';
import type { ReconcileReport } from '../../workflows/contracts/task-reconciler.types.ts';
import { createAgentWithKey, createDeveloperWithKey } from '../helpers/accounts.ts';
import { checkedBalance } from '../helpers/balance.ts';
import { newPayer, useLocalChain, x402OnLocalChain } from '../helpers/chain.ts';
import { useGateway } from '../helpers/gateway.ts';
import { call, waitForEnd } from '../helpers/http.ts';

const chain = useLocalChain();
const gateway = useGateway(() => x402OnLocalChain(chain));
const network = () => `eip155:${chain.chainId}` as const;

/** The API key rides along on every request the x402 client makes. */
const withKey =
  (key: string): typeof fetch =>
  (input, init) => {
    const request = new Request(input, init);
    request.headers.set('authorization', `Bearer ${key}`);
    return fetch(request);
  };

const topUpUrl = (path = '/agents/topup') => `${gateway.app.url}/api/v1${path}`;

async function topUpWith(fetcher: typeof fetch, amount: string, path?: string) {
  const response = await fetcher(topUpUrl(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount }),
  });
  return { response, body: (await response.json()) as Record<string, any> };
}

async function ledgerTopUps(accountId: string) {
  return gateway.database.prisma.ledgerEntry.findMany({ where: { accountId, kind: 'x402_topup' } });
}

/**
 * A receipt of this gateway, verified as docs/x402.md says: its kid must name the receipt key (`#receipts-1`) and the
 * signature must verify with that key from the DID document; the extension's verifier alone would take any key the
 * document publishes, the offer key among them.
 */
async function verifyGatewayReceipt(receipt: JWSSignedReceipt, base: string) {
  const kid = extractJWSHeader(receipt.signature).kid ?? '';
  if (!kid.endsWith('#receipts-1')) throw new Error(`${kid} is not this gateway's receipt key`);
  const did = (await (await fetch(`${base}/.well-known/did.json`)).json()) as {
    verificationMethod: { id: string; publicKeyJwk: object }[];
  };
  const method = did.verificationMethod.find((candidate) => candidate.id === kid);
  if (!method) throw new Error(`${kid} is not in the DID document`);
  return verifyReceiptSignatureJWS(receipt, method.publicKeyJwk as never);
}

/** The offer of a top-up, as its 402 states it. */
async function offerFor(key: string, amount: string): Promise<PaymentRequired> {
  const refused = await call(gateway, 'POST', '/api/v1/agents/topup', { key, body: { amount } });
  expect(refused.status).toBe(402);
  return decodePaymentRequiredHeader(refused.headers.get('payment-required')!);
}

describe('x402 top-ups', () => {
  it('offers the amount, credits it once when paid, and answers a receipt that verifies', async () => {
    const agent = await createAgentWithKey(gateway.database.prisma);
    const payer = await newPayer(chain, 20_000_000n);
    const required = await offerFor(agent.apiKey.key, '3.25');
    expect(required.accepts).toEqual([
      expect.objectContaining({ scheme: 'exact', network: network(), amount: '3250000', asset: chain.usdcAddress }),
    ]);
    expect(required.extensions?.['offer-receipt']).toMatchObject({ info: { offers: [expect.any(Object)] } });
    expect(required.extensions?.['payment-identifier']).toMatchObject({ info: { required: false } });
    expect(required.extensions?.bazaar).toMatchObject({ info: { input: { method: 'POST' } } });

    const before = await chain.balanceOf(payer.address);
    const paying = payingFetch(payer, { network: network(), asset: chain.usdcAddress }, withKey(agent.apiKey.key));
    const { response, body } = await topUpWith(paying, '3.25');
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ status: 'settled', amount: '3.25', payer: payer.address.toLowerCase() });
    expect(body.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.balanceOf(payer.address)).toBe(before - 3_250_000n);
    const balance = await call(gateway, 'GET', '/api/v1/agents/balance', { key: agent.apiKey.key });
    expect(balance.body.balance).toBe(body.balance);
    expect(Number(body.balance)).toBeCloseTo(Number(agent.balance) / 1e6 + 3.25, 6);

    // The receipt, in the body and in PAYMENT-RESPONSE, verified by the extension through /.well-known/did.json.
    const receipt = extractReceiptFromResponse(response) as JWSSignedReceipt;
    expect(receipt).toEqual(body.receipt);
    expect(decodePaymentResponseHeader(response.headers.get('payment-response')!).transaction).toBe(body.transaction);
    const verified = await verifyReceiptSignatureJWS(receipt);
    expect(await verifyGatewayReceipt(receipt, gateway.app.url)).toEqual(verified);
    expect(verified).toMatchObject({
      kind: 'top_up',
      id: body.top_up_id,
      amount: '3250000',
      transaction: body.transaction,
      network: network(),
      payer: payer.address.toLowerCase(),
      resourceUrl: topUpUrl(),
    });
    const [header, payload, signature] = receipt.signature.split('.');
    const altered = Buffer.from(payload!, 'base64url').toString().replace('3250000', '9250000');
    const forged = `${header}.${Buffer.from(altered).toString('base64url')}.${signature}`;
    await expect(verifyReceiptSignatureJWS({ format: 'jws', signature: forged })).rejects.toThrow();
    expect(await ledgerTopUps(agent.agentId)).toHaveLength(1);
  });

  it('signs offers with a key of their own: an offer never verifies as a receipt (issue 55, point 8)', async () => {
    const agent = await createAgentWithKey(gateway.database.prisma);
    const required = await offerFor(agent.apiKey.key, '7.50');
    const [offer] = (required.extensions?.['offer-receipt'] as { info: { offers: JWSSignedOffer[] } }).info.offers;
    // The offer is genuine, under the offer key, and names any amount the server was asked for.
    expect(extractJWSHeader(offer!.signature).kid).toMatch(/^did:web:127\.0\.0\.1%3A\d+#offers-1$/);
    expect(await verifyOfferSignatureJWS(offer!)).toMatchObject({ amount: '7500000', scheme: 'exact' });
    // Presented as a receipt, the documented verification refuses it: not the receipt key, and not signed by it.
    const asReceipt = { format: 'jws' as const, signature: offer!.signature };
    await expect(verifyGatewayReceipt(asReceipt, gateway.app.url)).rejects.toThrow(/not this gateway's receipt key/);
    const did = (await (await fetch(`${gateway.app.url}/.well-known/did.json`)).json()) as {
      verificationMethod: { id: string; publicKeyJwk: object }[];
    };
    const receiptKey = did.verificationMethod.find((method) => method.id.endsWith('#receipts-1'))!.publicKeyJwk;
    await expect(verifyReceiptSignatureJWS(asReceipt, receiptKey as never)).rejects.toThrow();
  });

  it('answers the same top-up for the same payment, and for another payment under the same payment identifier', async () => {
    const agent = await createAgentWithKey(gateway.database.prisma);
    const payer = await newPayer(chain, 20_000_000n);
    const required = await offerFor(agent.apiKey.key, '1.00');
    const paymentId = generatePaymentId();
    const signed = async () => {
      const { payload } = await pay(required, payer);
      return { ...payload, extensions: appendPaymentIdentifierToExtensions({ ...required.extensions }, paymentId) };
    };
    const first = await signed();
    const second = await signed();
    const send = (payload: object) =>
      call(gateway, 'POST', '/api/v1/agents/topup', {
        key: agent.apiKey.key,
        body: { amount: '1.00' },
        headers: { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload as never) },
      });
    const answers = [await send(first), await send(first), await send(second)];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.top_up_id)).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.body.balance)).size).toBe(1);
    expect(await ledgerTopUps(agent.agentId)).toHaveLength(1);
    expect(await gateway.database.prisma.x402TopUp.count({ where: { payer: payer.address.toLowerCase() } })).toBe(1);

    // An authorization that topped a balance up pays for no generation.
    const asGeneration = await call(gateway, 'POST', '/api/v1/generations', {
      body: { type: 'text-to-audio', model: 'local/espeak', prompt: 'Paid twice?' },
      headers: { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(first as never) },
    });
    expect(asGeneration.status, JSON.stringify(asGeneration.body)).toBe(409);

    // The same payment for another amount, or for another account, is a conflict: nothing is credited.
    const other = await createAgentWithKey(gateway.database.prisma);
    const reused = await call(gateway, 'POST', '/api/v1/agents/topup', {
      key: other.apiKey.key,
      body: { amount: '1.00' },
      headers: { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(first as never) },
    });
    expect(reused.status).toBe(409);
    expect(await ledgerTopUps(other.agentId)).toHaveLength(0);
  });

  it('tops up a developer account too, and refuses amounts out of range naming the field', async () => {
    const developer = await createDeveloperWithKey(gateway.database.prisma);
    const payer = await newPayer(chain, 20_000_000n);
    const paying = payingFetch(payer, { network: network(), asset: chain.usdcAddress }, withKey(developer.apiKey.key));
    const { response, body } = await topUpWith(paying, '2.00', '/account/topup');
    expect(response.status, JSON.stringify(body)).toBe(200);
    const balance = await call(gateway, 'GET', '/api/v1/account/balance', { key: developer.apiKey.key });
    expect(balance.body.balance).toBe(body.balance);
    for (const amount of ['0', '0.001', '10000.01', '-1', 'five']) {
      const refused = await call(gateway, 'POST', '/api/v1/account/topup', {
        key: developer.apiKey.key,
        body: { amount },
      });
      expect(refused.status, amount).toBe(400);
      expect(refused.body.message).toContain('amount');
    }
    const agentOnDeveloperRoute = await call(gateway, 'POST', '/api/v1/agents/topup', {
      key: developer.apiKey.key,
      body: { amount: '1' },
    });
    expect(agentOnDeveloperRoute.status).toBe(403);
  });

  it('then pays for generations from the balance with no other payment, each with receipts that verify', async () => {
    const agent = await createAgentWithKey(gateway.database.prisma);
    const payer = await newPayer(chain, 20_000_000n);
    const paying = payingFetch(payer, { network: network(), asset: chain.usdcAddress }, withKey(agent.apiKey.key));
    expect((await topUpWith(paying, '1.00')).response.status).toBe(200);
    const onChain = await chain.balanceOf(payer.address);

    const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Paid from a topped-up balance.' };
    const created = await call(gateway, 'POST', '/api/v1/generations', { key: agent.apiKey.key, body: speech });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const done = await waitForEnd(gateway, { key: agent.apiKey.key, pollUrl: created.body.poll_url });
    expect(done.status).toBe('completed');
    const receipts = await call(gateway, 'GET', `/api/v1/generations/${created.body.id}/receipt`, {
      key: agent.apiKey.key,
    });
    expect(receipts.status).toBe(200);
    const [charge, ...rest] = receipts.body.receipts;
    expect(rest).toEqual([]);
    expect(charge).toMatchObject({
      kind: 'charge',
      amount: done.cost_formatted ?? expect.any(String),
      network: 'balance',
    });
    expect(await verifyReceiptSignatureJWS(charge.receipt)).toMatchObject({
      kind: 'charge',
      id: created.body.id,
      amount: String(Math.round(done.cost * 1e6)),
      transaction: charge.transaction,
      payer: agent.agentId,
    });
    expect(await chain.balanceOf(payer.address)).toBe(onChain);

    // A task that fails gives its reservation back: its receipt says so.
    const failing = {
      type: 'image-to-video',
      model: 'local/ken-burns',
      image_url: `${gateway.app.url}/nothing.png`,
      duration: 3,
    };
    const failed = await call(gateway, 'POST', '/api/v1/generations', { key: agent.apiKey.key, body: failing });
    expect(failed.status, JSON.stringify(failed.body)).toBe(202);
    expect((await waitForEnd(gateway, { key: agent.apiKey.key, pollUrl: failed.body.poll_url })).status).toBe('failed');
    const refunded = await call(gateway, 'GET', `/api/v1/generations/${failed.body.id}/receipt`, {
      key: agent.apiKey.key,
    });
    expect(refunded.body.receipts.map((receipt: { kind: string }) => receipt.kind)).toEqual(['refund']);
    const refund = await verifyReceiptSignatureJWS(refunded.body.receipts[0].receipt);
    expect(refund).toMatchObject({
      kind: 'refund',
      id: failed.body.id,
      amount: String(Math.round(failed.body.cost * 1e6)),
    });

    const other = await createAgentWithKey(gateway.database.prisma);
    const foreign = await call(gateway, 'GET', `/api/v1/generations/${created.body.id}/receipt`, {
      key: other.apiKey.key,
    });
    expect(foreign.status).toBe(404);
  });
});

/**
 * What an api process that died between keeping a payment and starting its workflow leaves: the top-up `authorized`
 * (verified and written by the service function the endpoint calls first) and no workflow.
 */
async function keptTopUp(key: string, accountId: string, payer: LocalAccount, amount: string) {
  const { payload } = await pay(await offerFor(key, amount), payer);
  const deps = { config: gateway.config, facilitator: gateway.facilitator, prisma: gateway.database.prisma };
  const headers = { 'payment-signature': encodePaymentSignatureHeader(payload) };
  const amountMicros = BigInt(Math.round(Number(amount) * 1e6));
  const { topUp } = await authorizeTopUp(deps, { accountId, amountMicros, resourceUrl: topUpUrl(), headers });
  expect(topUp.status).toBe('authorized');
  return topUp;
}

/** Every top-up the reconciler's runs so far resumed, merged. */
async function resumedTopUps() {
  const schedule = await gateway.env.client.schedule.getHandle(taskReconcilerScheduleId).describe();
  const reports = await Promise.all(
    schedule.info.recentActions.map(
      ({ action }) =>
        gateway.env.client.workflow.getHandle(action.workflow.workflowId).result() as Promise<ReconcileReport>,
    ),
  );
  return reports.flatMap((report) => report.topUpsResumed ?? []);
}

describe('x402 top-ups left unsettled (their api process died)', () => {
  it('are settled or failed by the task reconciler after TASK_RECONCILE_AFTER_SECONDS, each credited once', async () => {
    const { prisma } = gateway.database;
    const agent = await createAgentWithKey(prisma);
    const key = agent.apiKey.key;
    const before = await checkedBalance(prisma, agent.agentId);
    const payer = await newPayer(chain, 20_000_000n);
    const onChain = await chain.balanceOf(payer.address);

    // Kept, never settled; kept and moved on chain, but the process died before recording it (`settling`); kept from
    // a payer whose funds then left (it can never move); and one kept just now, younger than the reconciler's bound.
    const kept = await keptTopUp(key, agent.agentId, payer, '1.25');
    const moved = await keptTopUp(key, agent.agentId, payer, '2.50');
    const settledOnChain = await gateway.facilitator().settle(moved.payload as never, moved.requirement as never);
    expect(settledOnChain.success).toBe(true);
    await prisma.x402TopUp.update({ where: { id: moved.id }, data: { status: 'settling' } });
    const spender = anvilDevAccount(5);
    await chain.mint(spender.address, 1_000_000n);
    const unfunded = await keptTopUp(key, agent.agentId, spender, '1.00');
    await chain.transfer({ from: spender, to: payer.address, amount: await chain.balanceOf(spender.address) });
    const young = await keptTopUp(key, agent.agentId, payer, '0.75');
    const stranded = [kept.id, moved.id, unfunded.id];
    await prisma.x402TopUp.updateMany({
      where: { id: { in: stranded } },
      data: { createdAt: new Date(Date.now() - 20 * 60_000) },
    });

    await ensureTaskReconcilerSchedule(gateway.env.client, gateway.config);
    const schedule = gateway.env.client.schedule.getHandle(taskReconcilerScheduleId);
    await schedule.trigger();
    const statusOf = async (id: string) => (await prisma.x402TopUp.findUniqueOrThrow({ where: { id } })).status;
    await expect.poll(() => statusOf(kept.id), { timeout: 30_000 }).toBe('settled');
    await expect.poll(() => statusOf(moved.id), { timeout: 30_000 }).toBe('settled');
    await expect.poll(() => statusOf(unfunded.id), { timeout: 30_000 }).toBe('failed');
    expect(await statusOf(young.id)).toBe('authorized');
    expect(await resumedTopUps()).toEqual(
      expect.arrayContaining(stranded.map((topUpId) => ({ topUpId, workflow: 'NOT_FOUND' }))),
    );
    expect((await resumedTopUps()).map(({ topUpId }) => topUpId)).not.toContain(young.id);

    // Money exact: each settled top-up credited once, the transfer made before the crash recorded, not made again.
    const moved2 = await prisma.x402TopUp.findUniqueOrThrow({ where: { id: moved.id } });
    expect(moved2.transaction).toBe(settledOnChain.transaction);
    const credited = async () =>
      (await ledgerTopUps(agent.agentId)).map(({ amount, idempotencyKey }) => [idempotencyKey, amount]).sort();
    const expected = [
      [`${kept.id}:x402-topup`, 1_250_000n],
      [`${moved.id}:x402-topup`, 2_500_000n],
    ].sort();
    expect(await credited()).toEqual(expected);
    expect(await checkedBalance(prisma, agent.agentId)).toEqual({ ...before, balance: before.balance + 3_750_000n });
    expect(await chain.balanceOf(payer.address)).toBe(onChain - 3_750_000n + 1_000_000n);

    // Another run finds nothing left to resume and moves nothing.
    const runs = (await schedule.describe()).info.recentActions.length;
    await schedule.trigger();
    await expect
      .poll(async () => (await schedule.describe()).info.recentActions.length, { timeout: 30_000 })
      .toBe(runs + 1);
    const last = (await schedule.describe()).info.recentActions.at(-1)!;
    const report = (await gateway.env.client.workflow
      .getHandle(last.action.workflow.workflowId)
      .result()) as ReconcileReport;
    expect(report.topUpsResumed).toEqual([]);
    expect(await credited()).toEqual(expected);
    expect(await checkedBalance(prisma, agent.agentId)).toEqual({ ...before, balance: before.balance + 3_750_000n });
    await schedule.delete();
  });
});

// A wallet, on the real local chain: it registers an agent by paying its first top-up with @x402/fetch (the agent is
// tied to it), recovers a lost key by signing in with the Sign-In-with-X extension's own client code (signed with
// viem), and — without paying — gets a read session for the tasks it paid for with x402.
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import {
  extractReceiptFromResponse,
  type JWSSignedReceipt,
  verifyReceiptSignatureJWS,
} from '@x402/extensions/offer-receipt';
import { createSIWxPayload, encodeSIWxHeader, type SIWxExtension } from '@x402/extensions/sign-in-with-x';
import type { LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { pay, payingFetch } from '../../harness/x402-paying-client.ts';
import { newPayer, useLocalChain, x402OnLocalChain } from '../helpers/chain.ts';
import { useGateway } from '../helpers/gateway.ts';
import { call, waitForEnd } from '../helpers/http.ts';

const chain = useLocalChain();
const gateway = useGateway(() => x402OnLocalChain(chain));
const network = () => `eip155:${chain.chainId}` as const;

const url = (path: string) => `${gateway.app.url}/api/v1${path}`;

async function postJson(fetcher: typeof fetch, path: string, body: object, headers: Record<string, string> = {}) {
  const response = await fetcher(url(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

/** Signs the challenge of `path`'s 402 with `wallet`, as the extension's client does. */
async function signedIn(wallet: LocalAccount, path: string): Promise<string> {
  const challenged = await postJson(fetch, path, {});
  expect(challenged.status).toBe(402);
  const required = decodePaymentRequiredHeader(challenged.headers.get('payment-required')!);
  expect(required.accepts).toEqual([]);
  const extension = required.extensions!['sign-in-with-x'] as SIWxExtension;
  const [supported] = extension.supportedChains;
  expect(supported).toEqual({ chainId: network(), type: 'eip191' });
  const payload = await createSIWxPayload({ ...extension.info, ...supported! }, wallet, url(path));
  return encodeSIWxHeader(payload);
}

const registration = { agent_name: 'paid agent', top_up: '2.00' };

describe('an agent registered by a wallet', () => {
  it('is tied to the wallet that paid, credited once, and recovered by signing in with it', async () => {
    const wallet = await newPayer(chain, 20_000_000n);
    const before = await chain.balanceOf(wallet.address);
    const paying = payingFetch(wallet, { network: network(), asset: chain.usdcAddress });
    const registered = await postJson(paying, '/agents/register', registration);
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    expect(registered.body).toMatchObject({
      wallet_address: wallet.address.toLowerCase(),
      top_up: { status: 'settled', amount: '2.00', receipt: { format: 'jws' } },
    });
    expect(Number(registered.body.balance)).toBeCloseTo(Number(registered.body.starting_balance) + 2, 6);
    expect(await chain.balanceOf(wallet.address)).toBe(before - 2_000_000n);
    const lostKey = registered.body.api_key as string;

    // The key is lost: the wallet signs in and gets a new one, revoking the old.
    const header = await signedIn(wallet, '/agents/sign-in');
    const recovered = await postJson(
      fetch,
      '/agents/sign-in',
      { revoke_other_keys: true },
      { 'SIGN-IN-WITH-X': header },
    );
    expect(recovered.status, JSON.stringify(recovered.body)).toBe(201);
    expect(recovered.body).toMatchObject({ agent_id: registered.body.agent_id, revoked_keys: 1 });
    const balance = await call(gateway, 'GET', '/api/v1/agents/balance', { key: recovered.body.api_key });
    expect(balance.status).toBe(200);
    expect(balance.body.balance).toBe(registered.body.balance);
    expect((await call(gateway, 'GET', '/api/v1/agents/balance', { key: lostKey })).status).toBe(401);

    // A message signed to read tasks recovers no key: its nonce is bound to the URL it was issued for.
    const forReading = await signedIn(wallet, '/wallets/sign-in');
    const misused = await postJson(fetch, '/agents/sign-in', {}, { 'SIGN-IN-WITH-X': forReading });
    expect(misused.status).toBe(401);

    // A second agent of the same wallet: a sign-in must then name the one it recovers.
    const second = await postJson(
      payingFetch(wallet, { network: network(), asset: chain.usdcAddress }),
      '/agents/register',
      registration,
    );
    expect(second.status).toBe(201);
    const unnamed = await postJson(
      fetch,
      '/agents/sign-in',
      {},
      { 'SIGN-IN-WITH-X': await signedIn(wallet, '/agents/sign-in') },
    );
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.message).toContain('agent_id');
    const named = await postJson(
      fetch,
      '/agents/sign-in',
      { agent_id: second.body.agent_id },
      { 'SIGN-IN-WITH-X': await signedIn(wallet, '/agents/sign-in') },
    );
    expect(named.status, JSON.stringify(named.body)).toBe(201);
    expect(named.body.agent_id).toBe(second.body.agent_id);

    // The same signed message signs nobody in twice; another wallet registered no agent.
    const replayed = await postJson(fetch, '/agents/sign-in', {}, { 'SIGN-IN-WITH-X': header });
    expect(replayed.status).toBe(401);
    expect(replayed.body.message).toContain('invalid_siwx_nonce');
    const stranger = privateKeyToAccount(generatePrivateKey());
    const unknown = await postJson(
      fetch,
      '/agents/sign-in',
      {},
      { 'SIGN-IN-WITH-X': await signedIn(stranger, '/agents/sign-in') },
    );
    expect(unknown.status).toBe(404);
  });

  it('answers 409 to the same payment sent again, registering nothing more', async () => {
    const wallet = await newPayer(chain, 20_000_000n);
    const refused = await postJson(fetch, '/agents/register', registration);
    expect(refused.status).toBe(402);
    const required = decodePaymentRequiredHeader(refused.headers.get('payment-required')!) as PaymentRequired;
    const { payload } = await pay(required, wallet);
    const send = () =>
      postJson(fetch, '/agents/register', registration, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) });
    const first = await send();
    expect(first.status).toBe(201);
    const again = await send();
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'conflict', message: expect.stringContaining('/api/v1/agents/sign-in') });
    // Whoever replays a payment seen on the wire learns nothing of the agent it registered.
    expect(again.body.message).not.toContain(first.body.agent_id);
    expect(again.body.message).not.toContain(registration.agent_name);
    const agents = await gateway.database.prisma.account.count({
      where: { walletAddress: wallet.address.toLowerCase() },
    });
    expect(agents).toBe(1);
  });

  it('registers one agent when the same payment is sent twice at once: the other answers as the replay does', async () => {
    const wallet = await newPayer(chain, 20_000_000n);
    const before = await chain.balanceOf(wallet.address);
    const refused = await postJson(fetch, '/agents/register', registration);
    const required = decodePaymentRequiredHeader(refused.headers.get('payment-required')!) as PaymentRequired;
    const { payload } = await pay(required, wallet);
    const headers = { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) };
    const answers = await Promise.all([1, 2].map(() => postJson(fetch, '/agents/register', registration, headers)));

    expect(answers.map(({ status }) => status).sort(), JSON.stringify(answers.map(({ body }) => body))).toEqual([
      201, 409,
    ]);
    const registered = answers.find(({ status }) => status === 201)!.body;
    // As a replay's: it names no agent (the paying wallet signs in to reach it).
    const twin = answers.find(({ status }) => status === 409)!.body.message;
    expect(twin).toMatch(/^This payment registered an agent already/);
    expect(twin).not.toContain(registered.agent_id);
    const { prisma } = gateway.database;
    const agents = await prisma.account.findMany({ where: { walletAddress: wallet.address.toLowerCase() } });
    expect(agents.map(({ id }) => id)).toEqual([registered.agent_id]);
    // Paid once, credited once, to that agent.
    expect(await chain.balanceOf(wallet.address)).toBe(before - 2_000_000n);
    const topUps = await prisma.x402TopUp.findMany({ where: { payer: wallet.address.toLowerCase() } });
    expect(topUps.map(({ accountId, status }) => ({ accountId, status }))).toEqual([
      { accountId: registered.agent_id, status: 'settled' },
    ]);
    const entries = await prisma.ledgerEntry.findMany({
      where: { accountId: registered.agent_id, kind: 'x402_topup' },
    });
    expect(entries.map(({ amount }) => amount)).toEqual([2_000_000n]);
  });
});

describe('a wallet that paid for a task', () => {
  it('signs in without paying and reads its own x402 tasks, and nothing more', async () => {
    const wallet = await newPayer(chain, 20_000_000n);
    const paying = payingFetch(wallet, { network: network(), asset: chain.usdcAddress });
    const created = await postJson(paying, '/generations', {
      type: 'text-to-audio',
      model: 'local/espeak',
      prompt: 'Mine.',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const done = await waitForEnd(gateway, { key: created.body.access_token, pollUrl: created.body.poll_url });
    // Its settled payment has a signed receipt naming the task, the amount and the transfer: in the task's
    // PAYMENT-RESPONSE, where the extension's client looks, and at …/receipt.
    const answered = await fetch(`${gateway.app.url}${created.body.poll_url}`, {
      headers: { authorization: `Bearer ${created.body.access_token}` },
    });
    const inHeader = extractReceiptFromResponse(answered) as JWSSignedReceipt;
    expect(await verifyReceiptSignatureJWS(inHeader)).toMatchObject({ kind: 'payment', id: created.body.id });
    const receipts = await call(gateway, 'GET', `/api/v1/generations/${created.body.id}/receipt`, {
      key: created.body.access_token,
    });
    expect(receipts.body.receipts.map((receipt: { kind: string }) => receipt.kind)).toEqual(['payment']);
    expect(await verifyReceiptSignatureJWS(receipts.body.receipts[0].receipt)).toMatchObject({
      kind: 'payment',
      id: created.body.id,
      network: network(),
      payer: wallet.address.toLowerCase(),
      transaction: done.payment.transaction,
      amount: String(Math.round(done.cost * 1e6)),
    });

    const header = await signedIn(wallet, '/wallets/sign-in');
    const session = await postJson(fetch, '/wallets/sign-in', {}, { 'SIGN-IN-WITH-X': header });
    expect(session.status, JSON.stringify(session.body)).toBe(200);
    expect(session.body).toMatchObject({ token_type: 'Bearer', wallet: wallet.address.toLowerCase() });
    const token = session.body.access_token as string;
    expect(token).toMatch(/^wt_/);

    const listed = await call(gateway, 'GET', '/api/v1/generations', { key: token });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.generations.map((task: { id: string }) => task.id)).toEqual([created.body.id]);
    const read = await call(gateway, 'GET', `/api/v1/generations/${created.body.id}`, { key: token });
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('completed');
    const cancel = await call(gateway, 'POST', `/api/v1/generations/${created.body.id}/cancel`, { key: token });
    expect(cancel.status).toBe(403);
    const keys = await call(gateway, 'POST', '/api/v1/keys', { key: token, body: { name: 'nope' } });
    expect(keys.status).toBe(403);
    const currentKey = await call(gateway, 'GET', '/api/v1/keys/current', { key: token });
    expect(currentKey.status).toBe(403);
    expect(currentKey.body.error).toBe('forbidden');
    expect((await call(gateway, 'GET', '/api/v1/keys', { key: token })).body.error).toBe('scope_required');
    const forged = `${token.slice(0, -4)}AAAA`;
    expect((await call(gateway, 'GET', '/api/v1/generations', { key: forged })).status).toBe(401);

    // A wallet that never paid here has nothing to read.
    const stranger = privateKeyToAccount(generatePrivateKey());
    const nothing = await postJson(
      fetch,
      '/wallets/sign-in',
      {},
      { 'SIGN-IN-WITH-X': await signedIn(stranger, '/wallets/sign-in') },
    );
    expect(nothing.status).toBe(404);
  });
});

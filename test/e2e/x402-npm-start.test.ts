// x402 on `npm start` as a newcomer meets it (issue 25, points 5 and 6): with nothing configured, a keyless POST is
// answered 402 (not 401), the banner says how to pay, and both generations of x402 clients pay on its local chain —
// x402-fetch 1.x (v1: X-PAYMENT, networks by name) and @x402/fetch 2.x (v2) — each with its own code only.
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment as wrapFetchV2 } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';
import { createSigner, decodeXPaymentResponse, wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch';
import { describe, expect, it } from 'vitest';
import { readLocalChainFile } from '../../src/chain/local-chain-file.ts';
import { useNpmStart } from '../helpers/npm-start.ts';
import { fundedPayer, paidTaskEnded } from '../helpers/x402-payers.ts';

const npmStart = useNpmStart('gateway-x402-start-');
const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Paid per request on npm start.' };
const generations = () => `http://127.0.0.1:${npmStart.env.PORT}/api/v1/generations`;

const post = (fetcher: typeof fetch) =>
  fetcher(generations(), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(speech),
  });

describe('x402 on npm start, nothing configured', () => {
  it('is on: a keyless POST is 402 for v2 and v1 clients, and x402-fetch 1.x and @x402/fetch 2.x both pay', async () => {
    const started = await npmStart.startService();
    const chain = (await readLocalChainFile(npmStart.dataDir))!;
    // The local chain runs as Base Sepolia, a network v1 clients can name; the banner says where and how to pay.
    expect(chain.chainId).toBe(84532);
    expect(started.output()).toContain(`eip155:84532 (x402 v1: base-sepolia), USDC ${chain.usdcAddress}`);
    expect(started.output()).toMatch(/x402 {10}on: POST \/api\/v1\/generations without an API key answers 402/);
    expect(started.output()).toContain('npx genctl chain fund 0x<payer address> --amount 5');

    // One 402 body for both generations: the spec's fields with v2's requirements, and v1's top level.
    const unpaid = await post(fetch);
    expect(unpaid.status).toBe(402);
    const body = (await unpaid.json()) as any;
    expect(body).toMatchObject({
      error: 'payment_required',
      cost: expect.any(Number),
      balance_available: 0,
      requirements: { x402Version: 2, accepts: expect.arrayContaining([expect.anything()]) },
      x402Version: 1,
    });
    const [offer] = body.requirements.accepts;
    expect(offer).toMatchObject({ scheme: 'exact', network: 'eip155:84532', asset: chain.usdcAddress });
    expect(body.accepts).toEqual([
      {
        scheme: 'exact',
        network: 'base-sepolia',
        maxAmountRequired: offer.amount,
        // Asked at 127.0.0.1 without PUBLIC_BASE_URL: the offer names the address asked (issue 55, point 22).
        resource: generations(),
        description: expect.stringContaining('local/espeak'),
        mimeType: 'application/json',
        payTo: offer.payTo,
        maxTimeoutSeconds: offer.maxTimeoutSeconds,
        asset: chain.usdcAddress,
        extra: { name: 'USD Coin', version: '2' },
      },
    ]);

    // x402 v2: @x402/fetch with the exact scheme on eip155:84532 and a spend limit, as docs/x402.md shows it.
    const v2Payer = privateKeyToAccount(await fundedPayer(npmStart.dataDir));
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: v2Payer, networks: ['eip155:84532'] });
    client.setSpendControls({
      allowedAssets: [{ network: 'eip155:84532', asset: chain.usdcAddress, maxAmountPerPayment: '1000000' }],
    });
    const v2 = await post(wrapFetchV2(fetch, client));
    expect(v2.status).toBe(202);
    const v2Task = await paidTaskEnded(`http://127.0.0.1:${npmStart.env.PORT}`, (await v2.json()) as any);
    expect(v2Task.task).toMatchObject({
      status: 'completed',
      payment: { network: 'eip155:84532', payer: v2Payer.address.toLowerCase(), status: 'settled' },
    });
    const v2Settled = decodePaymentResponseHeader(v2Task.response.headers.get('payment-response') ?? '');
    expect(v2Settled).toMatchObject({ success: true, network: 'eip155:84532' });

    // x402 v1: x402-fetch 1.x with its own signer for base-sepolia and a spend limit; it sends X-PAYMENT.
    const v1Key = await fundedPayer(npmStart.dataDir);
    const v1Signer = await createSigner('base-sepolia', v1Key);
    const v1 = await post(wrapFetchV1(fetch, v1Signer, 1_000_000n));
    expect(v1.status).toBe(202);
    const v1Task = await paidTaskEnded(`http://127.0.0.1:${npmStart.env.PORT}`, (await v1.json()) as any);
    expect(v1Task.task).toMatchObject({
      status: 'completed',
      outputs: [expect.stringMatching(/^http/)],
      payment: {
        scheme: 'exact',
        network: 'eip155:84532',
        payer: privateKeyToAccount(v1Key).address.toLowerCase(),
        amount: body.cost,
        amount_settled: body.cost,
        status: 'settled',
      },
    });
    // Its settlement answer in v1's header, naming the network as v1 does.
    const v1Settled = decodeXPaymentResponse(v1Task.response.headers.get('x-payment-response') ?? '');
    expect(v1Settled).toMatchObject({
      success: true,
      transaction: v1Task.task.payment.transaction,
      network: 'base-sepolia',
      payer: privateKeyToAccount(v1Key).address.toLowerCase(),
    });
  });
});

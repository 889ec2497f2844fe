// x402 on POST /generations, as far as this build goes: a call without an API key is priced exactly as admission
// prices it and answered 402 with the payment requirements (body and PAYMENT-REQUIRED header), which a client built
// on @x402/fetch can pay from with no code of its own.
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { priceRequest } from '../../src/catalog/pricing.ts';
import { developmentPayTo, loadConfig } from '../../src/config.ts';
import { unreadChains, useAppWithDatabase } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';

const on = useAppWithDatabase({ config: { X402_ENABLED: true, ...unreadChains } });
const off = useAppWithDatabase({ config: { ...unreadChains } });

const request = { type: 'upscale', model: 'local/lanczos', image_url: 'https://inputs.example/photo.png' };
// An upscale has no priced options: admission's price for it is the model's with none given.
const priceOf = (body: typeof request) =>
  priceRequest(loadCatalog().get(body.model) ?? (undefined as never), {}).micros;
const usdc = {
  'eip155:8453': '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  'eip155:137': '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  'eip155:1': '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
} as const;

describe('POST /generations without an API key, x402 on', () => {
  it('answers 402 with the price admission charges and one exact USDC requirement per enabled chain', async () => {
    const { status, headers, body } = await call(on, 'POST', '/generations', { body: request });
    const cost = priceOf(request);
    expect(status).toBe(402);
    expect(body).toMatchObject({
      error: 'payment_required',
      message: expect.stringMatching(/pay it with x402/),
      cost: Number(cost) / 1e6,
      requirements: {
        x402Version: 2,
        resource: { url: expect.stringMatching(/\/api\/v1\/generations$/) },
      },
    });
    const timeout = (loadCatalog().get(request.model)?.timeout_seconds ?? 0) + 600;
    expect(body.requirements.accepts).toEqual(
      Object.entries(usdc).map(([network, asset]) => ({
        scheme: 'exact',
        network,
        amount: cost.toString(),
        asset,
        payTo: developmentPayTo,
        maxTimeoutSeconds: timeout,
        extra: { name: 'USD Coin', version: '2' },
      })),
    );
    expect(decodePaymentRequiredHeader(headers.get('payment-required') ?? '')).toEqual(body.requirements);
  });

  it('validates the request first: a bad body is 400 naming the field, and costs nothing to ask', async () => {
    const { status, body } = await call(on, 'POST', '/generations', { body: { ...request, model: 'local/nope' } });
    expect(status).toBe(400);
    expect(body).toEqual({
      error: 'validation_error',
      message: expect.stringMatching(/^Invalid body: model: unknown/),
    });
  });

  it('lets an @x402/fetch client sign a payment from the answer alone; this build then declines to take it', async () => {
    const payer = privateKeyToAccount(`0x${'11'.repeat(32)}`);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: payer, networks: ['eip155:8453'] });
    client.setSpendControls({
      allowedAssets: [{ network: 'eip155:8453', asset: usdc['eip155:8453'], maxAmountPerPayment: '10000000' }],
    });
    const sent: Record<string, string>[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      sent.push(Object.fromEntries(new Headers(init?.headers ?? (input instanceof Request ? input.headers : {}))));
      return fetch(input, init);
    };
    const pay = wrapFetchWithPayment(recordingFetch, client);
    const response = await pay(`${on.app.url}/api/v1/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    expect(sent).toHaveLength(2);
    const payment = decodePaymentSignatureHeader(sent[1]?.['payment-signature'] ?? '');
    expect(payment).toMatchObject({
      x402Version: 2,
      accepted: { scheme: 'exact', network: 'eip155:8453', amount: priceOf(request).toString() },
      payload: { authorization: { from: payer.address, to: developmentPayTo, value: priceOf(request).toString() } },
    });
    expect(response.status).toBe(501);
    expect(await response.json()).toEqual({
      error: 'not_implemented',
      message: expect.stringMatching(/no payment was taken/),
    });
  });
});

describe('with x402 off (this build’s default)', () => {
  it('keeps POST /generations for API keys (401) and says so in GET /models', async () => {
    expect(loadConfig({}, []).X402_ENABLED).toBe(false);
    const { status, body } = await call(off, 'POST', '/generations', { body: request });
    expect(status).toBe(401);
    expect(body.error).toBe('unauthorized');
    const models = (await call(off, 'GET', '/models')).body.models;
    expect(models.every((model: { supports_x402: boolean }) => model.supports_x402 === false)).toBe(true);
  });
});

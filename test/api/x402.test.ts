// x402 on POST /generations before anything is admitted: a call without an API key is priced exactly as admission
// prices it and answered 402 with the payment requirements (body and PAYMENT-REQUIRED header), which a client built
// on @x402/fetch can pay from with no code of its own; a payment that does not pay them is refused, 402, with why.
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSigner, wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch';
import { describe, expect, it } from 'vitest';
import { extractDiscoveryInfo, validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { anvilDevAccount } from '../../src/chain/local-chain.ts';
import { priceRequest } from '../../src/catalog/pricing.ts';
import { developmentPayTo, loadConfig } from '../../src/config/config.ts';
import { unreadChains, useAppWithDatabase } from '../helpers/app.ts';
import { useLocalChain, x402OnLocalChain } from '../helpers/chain.ts';
import { call } from '../helpers/http.ts';
import { startInputServer, wavTone } from '../helpers/media.ts';
import { pay, payingFetch } from '../../harness/x402-paying-client.ts';

const on = useAppWithDatabase({ config: { x402: { enabled: true }, ...unreadChains } });
const off = useAppWithDatabase({ config: { x402: { enabled: false }, ...unreadChains } });
// fal and Replicate configured: a model with a fallback route can run here.
const withFallback = useAppWithDatabase({
  config: {
    x402: { enabled: true },
    providers: { fal: { key: 'fal-key' }, replicate: { apiToken: 'r8-token' } },
    ...unreadChains,
  },
});
const exactOnly = useAppWithDatabase({
  config: { x402: { enabled: true, schemes: ['exact'] }, ...unreadChains },
});

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
  it('answers 402 with the price admission charges: an exact USDC requirement per enabled chain, then an upto one', async () => {
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
    // Ten minutes' wait for a provider slot (PROVIDER_QUEUE_TIMEOUT_SECONDS), the model's timeout, ten minutes to
    // collect the outputs, five to settle.
    const timeout = 600 + (loadCatalog().get(request.model)?.timeout_seconds ?? 0) + 900;
    const offer = (scheme: string, network: string, asset: string) => ({
      scheme,
      network,
      amount: cost.toString(),
      asset,
      payTo: developmentPayTo,
      maxTimeoutSeconds: timeout,
    });
    // upto: the payer's Permit2 witness names the facilitator that may settle it (here the gateway's own account).
    const facilitatorAddress = privateKeyToAccount(loadConfig({}, []).x402.facilitatorPrivateKey).address;
    expect(body.requirements.accepts).toEqual([
      ...Object.entries(usdc).map(([network, asset]) => ({
        ...offer('exact', network, asset),
        extra: { name: 'USD Coin', version: '2' },
      })),
      ...Object.entries(usdc).map(([network, asset]) => ({
        ...offer('upto', network, asset),
        extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'permit2', facilitatorAddress },
      })),
    ]);
    expect(decodePaymentRequiredHeader(headers.get('payment-required') ?? '')).toEqual(body.requirements);
  });

  it('carries the Bazaar discovery extension: how to call POST /generations and what it answers (v2 only)', async () => {
    const { headers, body } = await call(on, 'POST', '/generations', { body: request });
    const bazaar = body.requirements.extensions.bazaar;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(bazaar.info.input).toMatchObject({
      type: 'http',
      method: 'POST',
      bodyType: 'json',
      body: { type: 'upscale', model: 'local/lanczos' },
    });
    expect(bazaar.schema.properties.input.properties.body.required).toEqual(['type', 'model']);
    expect(bazaar.info.output.example).toMatchObject({ status: 'queued', access_token: expect.any(String) });
    // The header carries the same object, and a facilitator's catalog reads the resource from it.
    const required = decodePaymentRequiredHeader(headers.get('payment-required')!);
    expect(required.extensions).toEqual(body.requirements.extensions);
    const discovered = extractDiscoveryInfo(
      {
        x402Version: 2,
        resource: required.resource,
        accepted: required.accepts[0]!,
        payload: {},
        extensions: required.extensions,
      },
      required.accepts[0]!,
    );
    expect(discovered).toMatchObject({ resourceUrl: required.resource.url, method: 'POST' });
    // v1 clients validate their offers strictly: nothing is added there.
    for (const offer of body.accepts) expect(Object.keys(offer)).not.toContain('outputSchema');
  });

  it('also answers x402 v1 clients at the top level: x402Version 1 and its exact offers by network name (issue 25, point 5)', async () => {
    const { body } = await call(on, 'POST', '/generations', { body: request });
    expect(body).toMatchObject({ error: 'payment_required', balance_available: 0, x402Version: 1 });
    const exact = body.requirements.accepts.filter((offer: { scheme: string }) => offer.scheme === 'exact');
    // v1 names Base and Polygon; it has no name for Ethereum, so no v1 offer there (nor `upto`, which v1 lacks).
    expect(body.accepts).toEqual(
      ['base', 'polygon'].map((network, index) => ({
        scheme: 'exact',
        network,
        maxAmountRequired: exact[index].amount,
        resource: body.requirements.resource.url,
        description: body.requirements.resource.description,
        mimeType: 'application/json',
        payTo: exact[index].payTo,
        maxTimeoutSeconds: exact[index].maxTimeoutSeconds,
        asset: exact[index].asset,
        extra: { name: 'USD Coin', version: '2' },
      })),
    );
  });

  it('asks for an authorization that outlasts a slot wait on every route a model may take (issue 25, point 11)', async () => {
    // fal/flux-schnell falls back to Replicate: each of its two routes may wait PROVIDER_QUEUE_TIMEOUT_SECONDS.
    const model = loadCatalog().get('fal/flux-schnell')!;
    expect(model.fallbacks).toHaveLength(1);
    const { status, body } = await call(withFallback, 'POST', '/generations', {
      body: { type: 'text-to-image', model: model.id, prompt: 'a lighthouse' },
    });
    expect(status).toBe(402);
    const seconds = body.requirements.accepts.map((offer: { maxTimeoutSeconds: number }) => offer.maxTimeoutSeconds);
    expect(new Set(seconds)).toEqual(new Set([2 * 600 + model.timeout_seconds + 900]));
  });

  it('answers a bad body 402 too, as discovery probes need: the message names the field, the price is an example’s', async () => {
    const { status, headers, body } = await call(on, 'POST', '/generations', {
      body: { ...request, model: 'local/nope' },
    });
    expect(status).toBe(402);
    expect(body).toMatchObject({
      error: 'payment_required',
      message: expect.stringMatching(
        /^Invalid body: model: unknown.* are those of an example request \(.*local\/espeak\)/,
      ),
      x402Version: 1,
      requirements: { extensions: { bazaar: { info: { input: { body: { model: 'local/espeak' } } } } } },
    });
    expect(decodePaymentRequiredHeader(headers.get('payment-required') ?? '')).toEqual(body.requirements);
    // With an API key the same body is refused as it always was (test/api/x402-discovery-probe.test.ts has the rest).
  });
});

describe('with upto not configured (X402_SCHEMES=exact)', () => {
  it('offers exact only', async () => {
    const { body } = await call(exactOnly, 'POST', '/generations', { body: request });
    expect(body.requirements.accepts.map((offer: { scheme: string }) => offer.scheme)).toEqual([
      'exact',
      'exact',
      'exact',
    ]);
  });
});

describe('with x402 off (the default wherever a chain has an RPC URL)', () => {
  it('keeps POST /generations for API keys (401) and says so in GET /models', async () => {
    const ownXpub =
      'xpub6CUGRUonZSQ4TWtTMmzXdrXDtypWKiKrhko4egpiMZbpiaQL2jkwSB1icqYh2cfDfVxdx4df189oLKnC5fSwqPfgyP3hooxujYzAu3fDVmz';
    const ownKeys = { DEPOSIT_XPUB: ownXpub, TASK_ID_SECRET: 'y'.repeat(40) };
    expect(loadConfig({ BASE_RPC_URL: 'https://base.example', ...ownKeys }, []).x402.enabled).toBe(false);
    const { status, body } = await call(off, 'POST', '/generations', { body: request });
    expect(status).toBe(401);
    expect(body.error).toBe('unauthorized');
    const models = (await call(off, 'GET', '/models')).body.models;
    expect(models.every((model: { supports_x402: boolean }) => model.supports_x402 === false)).toBe(true);
  });
});

// On the real local chain with the real test token: payments are verified (by this server as its own facilitator).
// It runs as npm start's does, as Base Sepolia (84532): x402 v1 clients can name it.
const chain = useLocalChain({ chainId: 84532 });
const paying = useAppWithDatabase(() => ({
  config: x402OnLocalChain(chain),
}));
const network = () => `eip155:${chain.chainId}` as const;

const post = (fetcher: typeof fetch) =>
  fetcher(`${paying.app.url}/api/v1/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });

describe('an x402 payment on the local chain', () => {
  it('refuses a payer without the funds: 402 with the reason, in the body and the header', async () => {
    const penniless = privateKeyToAccount(`0x${'22'.repeat(32)}`);
    const response = await post(payingFetch(penniless, { network: network(), asset: chain.usdcAddress }));
    expect(response.status).toBe(402);
    const body = (await response.json()) as { requirements: unknown };
    expect(body).toMatchObject({
      error: 'payment_required',
      message: 'The payment was refused: invalid_exact_evm_insufficient_balance. Nothing was charged.',
      requirements: { error: 'invalid_exact_evm_insufficient_balance' },
    });
    expect(decodePaymentRequiredHeader(response.headers.get('payment-required') ?? '')).toEqual(body.requirements);
  });

  it.each([
    ['a payment for less than the price', (accepted: Record<string, unknown>) => ({ ...accepted, amount: '1' })],
    [
      'a payment to someone else',
      (accepted: Record<string, unknown>) => ({ ...accepted, payTo: '0x000000000000000000000000000000000000dEaD' }),
    ],
    [
      'a payment in another asset',
      (accepted: Record<string, unknown>) => ({ ...accepted, asset: '0x000000000000000000000000000000000000bEEF' }),
    ],
    ['a payment on another network', (accepted: Record<string, unknown>) => ({ ...accepted, network: 'eip155:1' })],
  ])('refuses %s before verifying it (402, payment_requirements_mismatch)', async (_, change) => {
    const payer = anvilDevAccount(6);
    const unpaid = await call(paying, 'POST', '/generations', { body: request });
    const wrong = { ...unpaid.body.requirements, accepts: unpaid.body.requirements.accepts.map(change) };
    const { payload } = await pay(wrong, payer);
    const { status, body } = await call(paying, 'POST', '/generations', {
      body: request,
      headers: { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) },
    });
    expect(status).toBe(402);
    expect(body).toMatchObject({ error: 'payment_required', requirements: { error: 'payment_requirements_mismatch' } });
  });

  // The client signs validBefore = now + maxTimeoutSeconds. One second is refused by the facilitator (it wants six);
  // one minute passes it, but leaves no time to run the model and settle: the task would run for free.
  it.each([
    [1, 'invalid_exact_evm_payload_authorization_valid_before'],
    [60, 'authorization_window_too_short'],
  ])('refuses an authorization valid for %i s: %s', async (seconds, reason) => {
    const payer = anvilDevAccount(6);
    await chain.mint(payer.address, 5_000_000n);
    const unpaid = await call(paying, 'POST', '/generations', { body: request });
    const short = {
      ...unpaid.body.requirements,
      accepts: unpaid.body.requirements.accepts.map((offer: object) => ({ ...offer, maxTimeoutSeconds: seconds })),
    };
    const { payload } = await pay(short, payer);
    const { status, body } = await call(paying, 'POST', '/generations', {
      body: request,
      headers: { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) },
    });
    expect(status).toBe(402);
    expect(body.requirements.error).toBe(reason);
    if (reason === 'authorization_window_too_short')
      expect(body.message).toMatch(
        /^The authorization is valid for \d+ more seconds; this model needs \d+ to run and settle/,
      );
  });

  it('refuses a tampered signature, read from the v1 header name X-PAYMENT', async () => {
    const payer = anvilDevAccount(6);
    await chain.mint(payer.address, 5_000_000n);
    const unpaid = await call(paying, 'POST', '/generations', { body: request });
    const { payload } = await pay(unpaid.body.requirements, payer);
    const before = await chain.balanceOf(payer.address);
    const authorization = (payload.payload as { signature: string }).signature;
    const tampered = { ...payload, payload: { ...payload.payload, signature: `${authorization.slice(0, -4)}beef` } };
    const refused = await call(paying, 'POST', '/generations', {
      body: request,
      headers: { 'X-PAYMENT': encodePaymentSignatureHeader(tampered) },
    });
    expect(refused.status).toBe(402);
    expect(refused.body.requirements.error).toBe('invalid_exact_evm_signature');
    expect(await chain.balanceOf(payer.address)).toBe(before);
  });
});

describe('an x402 v1 payment (x402-fetch 1.x, X-PAYMENT) on the local chain (issue 25, point 5)', () => {
  it('is read and verified, not refused for its version: a payer without the funds gets the reason', async () => {
    const signer = await createSigner('base-sepolia', `0x${'23'.repeat(32)}`);
    const response = await post(wrapFetchV1(fetch, signer, 1_000_000n));
    expect(response.status).toBe(402);
    expect(await response.json()).toMatchObject({
      error: 'payment_required',
      message: 'The payment was refused: invalid_exact_evm_insufficient_balance. Nothing was charged.',
      requirements: { error: 'invalid_exact_evm_insufficient_balance' },
    });
  });

  it('refuses a v1 payment for less than the price before verifying it (402, payment_requirements_mismatch)', async () => {
    const key = generatePrivateKey();
    const payer = privateKeyToAccount(key);
    await chain.mint(payer.address, 5_000_000n);
    const signer = await createSigner('base-sepolia', key);
    // A client that signs for one unit less than the offer says.
    const cheaper = (async (input: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(input, init);
      if (response.status !== 402) return response;
      const body = (await response.json()) as { accepts: { maxAmountRequired: string }[] };
      const accepts = body.accepts.map((offer) => ({
        ...offer,
        maxAmountRequired: String(BigInt(offer.maxAmountRequired) - 1n),
      }));
      return new Response(JSON.stringify({ ...body, accepts }), { status: 402 });
    }) as typeof fetch;
    const before = await chain.balanceOf(payer.address);
    const response = await post(wrapFetchV1(cheaper, signer, 1_000_000n));
    expect(response.status).toBe(402);
    expect(await response.json()).toMatchObject({ requirements: { error: 'payment_requirements_mismatch' } });
    expect(await chain.balanceOf(payer.address)).toBe(before);
  });
});

describe('an x402 v1 payment for a model priced on its input’s length (issue 25, point 10)', () => {
  const measuring = useAppWithDatabase(() => ({
    config: { ...x402OnLocalChain(chain), inputs: { allowPrivateUrls: true } },
  }));
  const cleanUp = (url: string) => ({
    type: 'audio-to-audio',
    model: 'local/audio-clean',
    audio_url: `${url}/150s.wav`,
    duration: 1,
  });
  const postBody = (fetcher: typeof fetch, body: object) =>
    fetcher(`${measuring.app.url}/api/v1/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('is verified at the amount it offers before the input is downloaded: a payer without the funds costs no fetch', async () => {
    const inputs = await startInputServer({ '/150s.wav': { body: wavTone(150), contentType: 'audio/wav' } });
    try {
      const signer = await createSigner('base-sepolia', generatePrivateKey());
      const response = await postBody(wrapFetchV1(fetch, signer, 1_000_000n), cleanUp(inputs.url));
      expect(response.status).toBe(402);
      expect(await response.json()).toMatchObject({
        requirements: { error: 'invalid_exact_evm_insufficient_balance' },
      });
      expect(inputs.hits.get('/150s.wav') ?? 0).toBe(0);
    } finally {
      await inputs.close();
    }
  });

  it('refuses a payment for less than the shortest input costs before verifying it or fetching the input (issue 35, point 8)', async () => {
    const inputs = await startInputServer({ '/150s.wav': { body: wavTone(150), contentType: 'audio/wav' } });
    try {
      // A payer who holds the funds: verified at the one unit it offers, it would pass and the input be fetched.
      const key = generatePrivateKey();
      await chain.mint(privateKeyToAccount(key).address, 5_000_000n);
      const signer = await createSigner('base-sepolia', key);
      const oneUnit = (async (input: string | URL | Request, init?: RequestInit) => {
        const response = await fetch(input, init);
        if (response.status !== 402) return response;
        const body = (await response.json()) as { accepts: object[] };
        const accepts = body.accepts.map((offer) => ({ ...offer, maxAmountRequired: '1' }));
        return new Response(JSON.stringify({ ...body, accepts }), { status: 402 });
      }) as typeof fetch;
      const response = await postBody(wrapFetchV1(oneUnit, signer, 1_000_000n), cleanUp(inputs.url));
      expect(inputs.hits.get('/150s.wav') ?? 0).toBe(0);
      expect(response.status).toBe(402);
      expect(await response.json()).toMatchObject({
        error: 'payment_required',
        // A minute of audio-clean: no measurement prices it lower.
        message: expect.stringMatching(/less than this request costs at the least \(\$0\.001, its shortest input\)/),
        requirements: { error: 'payment_requirements_mismatch' },
      });
    } finally {
      await inputs.close();
    }
  });

  it('paid at the declared price, it is matched again on the measured one once verified: 402 naming it', async () => {
    const inputs = await startInputServer({ '/150s.wav': { body: wavTone(150), contentType: 'audio/wav' } });
    try {
      const key = generatePrivateKey();
      await chain.mint(privateKeyToAccount(key).address, 5_000_000n);
      const signer = await createSigner('base-sepolia', key);
      const response = await postBody(wrapFetchV1(fetch, signer, 1_000_000n), cleanUp(inputs.url));
      const body = (await response.json()) as { requirements: { error: string }; accepts: object[] };
      expect(response.status).toBe(402);
      expect(body.requirements.error).toBe('payment_requirements_mismatch');
      // 3 minutes × 0.001, measured once the payment of the declared minute was verified.
      for (const offer of body.accepts) expect(offer).toMatchObject({ maxAmountRequired: '3000' });
      expect(inputs.hits.get('/150s.wav')).toBeGreaterThan(0);
    } finally {
      await inputs.close();
    }
  });
});

// Offers (PAYMENT-REQUIRED), and the payment a request carries: both header names, its identity, and which offer it
// claims to pay. Payloads come from x402's own client paying on a real local chain.
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import type { LocalAccount } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { anvilDevAccount } from '../../../../src/chain/local-chain.ts';
import type { ChainSettings } from '../../../../src/chain/settings.ts';
import {
  matchRequirement,
  PaymentHeaderError,
  paymentIdentity,
  readPaymentHeader,
} from '../../../../src/payments/methods/x402/payment-header.ts';
import { paymentRequiredHeader, paymentRequirementsFor } from '../../../../src/payments/methods/x402/requirements.ts';
import { useLocalChain } from '../../../helpers/chain.ts';
import { pay, type Paid } from '../../../../harness/x402-paying-client.ts';

const chain = useLocalChain();
const payer = anvilDevAccount(1) as LocalAccount;
const payTo = anvilDevAccount(2).address;
const resource = {
  url: 'http://gateway.test/v1/generate',
  description: 'one generation',
  mimeType: 'application/json',
};
const polygonUsdc = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

let local: ChainSettings;
let required: PaymentRequired;
let paid: Paid;

beforeAll(async () => {
  local = {
    chain: 'base',
    rpcUrl: chain.rpcUrl,
    usdcAddress: chain.usdcAddress,
    confirmations: 1,
    local: true,
    chainId: chain.chainId,
  };
  required = paymentRequirementsFor({ chains: [local], payTo, amountMicros: 25_000n, maxTimeoutSeconds: 90, resource });
  paid = await pay(required, payer);
});

describe('paymentRequirementsFor', () => {
  it('offers one exact USDC payment per chain, the price in micro-USD as its atomic units', () => {
    const polygon: ChainSettings = { ...local, chain: 'polygon', chainId: 137, usdcAddress: polygonUsdc, local: false };
    const offers = paymentRequirementsFor({
      chains: [local, polygon],
      payTo,
      amountMicros: 1_234_567n,
      maxTimeoutSeconds: 60,
      resource,
    });
    const exact = { scheme: 'exact', amount: '1234567', payTo, maxTimeoutSeconds: 60 };
    const extra = { name: 'USD Coin', version: '2' };
    expect(offers).toEqual({
      x402Version: 2,
      resource,
      accepts: [
        { ...exact, network: `eip155:${chain.chainId}`, asset: chain.usdcAddress, extra },
        { ...exact, network: 'eip155:137', asset: polygonUsdc, extra },
      ],
    });
    expect(decodePaymentRequiredHeader(paymentRequiredHeader(offers))).toEqual(offers);
  });

  it('refuses no chain, a price of zero and a bad timeout', () => {
    const options = { chains: [local], payTo, amountMicros: 1n, maxTimeoutSeconds: 60, resource };
    expect(() => paymentRequirementsFor({ ...options, chains: [] })).toThrow(/no chain/);
    expect(() => paymentRequirementsFor({ ...options, amountMicros: 0n })).toThrow(RangeError);
    expect(() => paymentRequirementsFor({ ...options, maxTimeoutSeconds: 0 })).toThrow(RangeError);
  });
});

describe('readPaymentHeader', () => {
  it('reads the x402 client’s PAYMENT-SIGNATURE header', () => {
    expect(Object.keys(paid.headers)).toContain('payment-signature');
    const read = readPaymentHeader(paid.headers);
    expect(read).toEqual({ payload: paid.payload, headerName: 'PAYMENT-SIGNATURE' });
    expect((read!.payload as PaymentPayload).accepted).toEqual(required.accepts[0]);
  });

  it('reads the same payload under the v1 name X-PAYMENT, in any case, and from fetch Headers', () => {
    const value = paid.headers['payment-signature'] as string;
    expect(readPaymentHeader({ 'x-payment': value })).toEqual({ payload: paid.payload, headerName: 'X-PAYMENT' });
    expect(readPaymentHeader({ 'X-Payment': value })?.headerName).toBe('X-PAYMENT');
    expect(readPaymentHeader(new Headers({ 'Payment-Signature': value }))?.payload).toEqual(paid.payload);
    expect(readPaymentHeader({ 'payment-signature': value, 'x-payment': value })?.headerName).toBe('PAYMENT-SIGNATURE');
  });

  it('reads an x402 v1 payload (a v1 client’s X-PAYMENT) as it was sent (issue 25, point 5)', () => {
    const v1 = {
      x402Version: 1,
      scheme: 'exact',
      network: 'base-sepolia',
      payload: { signature: '0x', authorization: {} },
    };
    const value = Buffer.from(JSON.stringify(v1)).toString('base64');
    expect(readPaymentHeader({ 'x-payment': value })).toEqual({ payload: v1, headerName: 'X-PAYMENT' });
  });

  it('is null without a payment header', () => {
    expect(readPaymentHeader({ 'content-type': 'application/json' })).toBeNull();
  });

  it.each([
    ['not base64', { 'payment-signature': 'not base64!' }, 'malformed'],
    ['base64 of no JSON', { 'x-payment': Buffer.from('{nope').toString('base64') }, 'malformed'],
    ['an empty header', { 'payment-signature': '' }, 'malformed'],
    [
      'JSON that is no payload',
      { 'payment-signature': Buffer.from('{"x402Version":2}').toString('base64') },
      'malformed',
    ],
    [
      'a payload of a version other than 1 and 2',
      {
        'x-payment': Buffer.from('{"x402Version":3,"scheme":"exact","network":"base","payload":{}}').toString('base64'),
      },
      'unsupported_version',
    ],
    [
      'a v1 payload without its network',
      { 'x-payment': Buffer.from('{"x402Version":1,"scheme":"exact","payload":{}}').toString('base64') },
      'malformed',
    ],
    ['two different headers', { 'payment-signature': 'YQ==', 'x-payment': 'Yg==' }, 'conflicting_headers'],
  ])('throws a PaymentHeaderError for %s', (_case, headers, code) => {
    let thrown: unknown;
    try {
      readPaymentHeader(headers);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PaymentHeaderError);
    expect(thrown).toMatchObject({ code });
  });
});

describe('paymentIdentity', () => {
  it('names the payer (lowercase), nonce, network, asset and end of the window of an EIP-3009 payment', () => {
    const authorization = (paid.payload.payload as { authorization: Record<string, string> }).authorization;
    expect(paymentIdentity(paid.payload)).toEqual({
      payer: payer.address.toLowerCase(),
      nonce: authorization.nonce!.toLowerCase(),
      network: `eip155:${chain.chainId}`,
      asset: chain.usdcAddress.toLowerCase(),
      validBefore: BigInt(authorization.validBefore!),
    });
    expect(paymentIdentity(paid.payload)!.nonce).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('is null for a payload of another kind', () => {
    expect(paymentIdentity({ ...paid.payload, payload: { permit2Authorization: {}, signature: '0x' } })).toBeNull();
    expect(paymentIdentity({ ...paid.payload, accepted: { ...paid.payload.accepted, scheme: 'upto' } })).toBeNull();
    const authorization = { ...(paid.payload.payload as { authorization: object }).authorization, nonce: '0x12' };
    expect(paymentIdentity({ ...paid.payload, payload: { authorization, signature: '0x' } })).toBeNull();
  });
});

describe('matchRequirement', () => {
  it('finds the offer the payload pays, addresses in any case', () => {
    const polygon = { ...required.accepts[0]!, network: 'eip155:137' as const, asset: polygonUsdc };
    const accepts = [polygon, required.accepts[0]!];
    expect(matchRequirement(accepts, paid.payload)).toBe(accepts[1]);
    const shouted = { ...paid.payload.accepted, asset: paid.payload.accepted.asset.toUpperCase().replace('0X', '0x') };
    expect(matchRequirement(accepts, { ...paid.payload, accepted: shouted })).toBe(accepts[1]);
  });

  it.each([
    ['another amount', { amount: '25001' }],
    ['another payTo', { payTo: anvilDevAccount(5).address }],
    ['another asset', { asset: polygonUsdc }],
    ['another network', { network: 'eip155:137' as const }],
    ['another scheme', { scheme: 'upto' }],
  ])('refuses a payload for %s', async (_case, change) => {
    const other = await pay({ ...required, accepts: [{ ...required.accepts[0]!, ...change }] }, payer).catch(
      () => undefined,
    );
    // The x402 client pays what it can (not another scheme): either way, our offers do not match its claim.
    const payload = other?.payload ?? { ...paid.payload, accepted: { ...paid.payload.accepted, ...change } };
    expect(matchRequirement(required.accepts, payload)).toBeNull();
  });

  it('round-trips through the header encoder', () => {
    const header = encodePaymentSignatureHeader(paid.payload);
    const read = readPaymentHeader({ 'payment-signature': header })!.payload as PaymentPayload;
    expect(matchRequirement(required.accepts, read)).toEqual(required.accepts[0]);
  });
});

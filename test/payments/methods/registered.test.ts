// The registered list finds a payer's method by its kind, and a task's method by what its workflow input carries.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import type { PrismaClient } from '../../../src/db/prisma.ts';
import { IdempotencyKeyReusedError, PaymentReusedError } from '../../../src/domain/errors.ts';
import { admissionOf, paymentMethods } from '../../../src/payments/methods/registered.ts';
import type { PaidBy } from '../../../src/payments/methods/payment-method.ts';

const config = loadConfig({}, []);
const noDatabase = {} as PrismaClient;
const balancePaid: PaidBy = { taskId: 'gen_1', accountId: 'acc_1', idempotencyKey: null };
const x402Paid = { ...balancePaid, payment: { scheme: 'exact', payer: '0xabc' } } as PaidBy;

describe('registered payment methods', () => {
  it("admits a balance payer by its account, and an x402 payer as a wallet's, each with its own errors", async () => {
    const balance = admissionOf(
      { config },
      { kind: 'balance', account: { id: 'acc_1', kind: 'agent' }, idempotencyKey: null },
    );
    expect(balance).toMatchObject({ accountKind: 'agent', uploadsOwner: 'acc_1', handsAccess: false });
    expect(balance.reusedError()).toBeInstanceOf(IdempotencyKeyReusedError);
    // Without a key, no earlier task can be named: the database is not asked.
    await expect(balance.earlierTask(noDatabase)).resolves.toBeNull();

    const x402 = admissionOf(
      { config },
      { kind: 'x402', headers: {}, resourceUrl: 'http://localhost/api/v1/generations' },
    );
    expect(x402).toMatchObject({ accountKind: 'wallet', uploadsOwner: null, handsAccess: true });
    expect(x402.reusedError()).toBeInstanceOf(PaymentReusedError);
    // No payment offered yet: nothing names a task.
    await expect(x402.earlierTask(noDatabase)).resolves.toBeNull();
  });

  it('names the method a task was paid with, as its search attribute and summary say', () => {
    expect(paymentMethods.kindOf(balancePaid)).toBe('balance');
    expect(paymentMethods.describe(balancePaid)).toBe('from the balance');
    expect(paymentMethods.kindOf(x402Paid)).toBe('x402');
    expect(paymentMethods.describe(x402Paid)).toBe('paid with x402 by 0xabc');
  });

  it('makes a request without an API key an x402 payer, where x402 is offered', () => {
    const resourceUrl = 'http://localhost/api/v1/generations';
    const headers = { 'payment-signature': 'abc' };
    // Offered once x402 is on and a chain is there to be paid on; without a chain, or switched off, it is not.
    const base = { ...config.chains.base, rpcUrl: 'http://127.0.0.1:8545' };
    const chains = { ...config.chains, base, enabled: ['base' as const] };
    const withChain = { ...config, chains, x402: { ...config.x402, enabled: true } };
    expect(paymentMethods.keylessPayer(withChain, headers, resourceUrl)).toEqual({
      kind: 'x402',
      headers,
      resourceUrl,
    });
    expect(paymentMethods.keylessPayer(withChain, {}, resourceUrl)).toEqual({ kind: 'x402', headers: {}, resourceUrl });
    expect(paymentMethods.takesKeyless(withChain)).toBe(true);
    expect(paymentMethods.takesKeyless({ ...withChain, x402: { ...withChain.x402, enabled: false } })).toBe(false);
    expect(paymentMethods.takesKeyless({ ...config, x402: { ...config.x402, enabled: true } })).toBe(false);
    expect(paymentMethods.paysWithoutKey(withChain, {})).toBe(true);
    expect(paymentMethods.paysWithoutKey(config, {})).toBe(false);
  });

  it("finds who pays by the request's credential: an API key's Authorization, else x402's own headers, else nobody", () => {
    const claimed = (headers: Record<string, string>) => {
      const claimant = paymentMethods.claimant(headers);
      return claimant.by === 'method' ? claimant.method.kind : claimant.by;
    };
    expect(claimed({ authorization: 'Bearer sk_test' })).toBe('key');
    expect(claimed({ authorization: 'Bearer sk_test', 'x-payment': 'abc' })).toBe('key');
    expect(claimed({ 'payment-signature': 'abc' })).toBe('x402');
    expect(claimed({ 'x-payment': 'abc' })).toBe('x402');
    expect(claimed({})).toBe('none');
    expect(paymentMethods.carriesPayment({ 'x-payment': 'abc' })).toBe(true);
    expect(paymentMethods.carriesPayment({})).toBe(false);
  });

  it("moves an MCP tool call's x402 payment into its HTTP header, and a settlement receipt back into _meta", () => {
    expect(paymentMethods.mcpPaymentHeaders(undefined)).toEqual({});
    expect(paymentMethods.mcpPaymentHeaders({ other: 1 })).toEqual({});
    const v1 = paymentMethods.mcpPaymentHeaders({ 'x402/payment': { x402Version: 1, payload: {} } });
    expect(Object.keys(v1)).toEqual(['x-payment']);
    const v2 = paymentMethods.mcpPaymentHeaders({ 'x402/payment': { x402Version: 2, payload: {} } });
    expect(Object.keys(v2)).toEqual(['payment-signature']);
    expect(JSON.parse(Buffer.from(v2['payment-signature']!, 'base64').toString())).toEqual({
      x402Version: 2,
      payload: {},
    });

    expect(paymentMethods.mcpReceiptMeta({})).toBeUndefined();
    const receipt = { success: true, transaction: '0x1', network: 'eip155:84532', payer: '0xabc' };
    const header = Buffer.from(JSON.stringify(receipt)).toString('base64');
    expect(paymentMethods.mcpReceiptMeta({ 'PAYMENT-RESPONSE': header })).toEqual({ 'x402/payment-response': receipt });
  });
});

// The local facilitator on a real local chain, with payloads from x402's own client: verify, settle (exactly the price
// moves, the facilitator pays the gas), a replay refused by the token, the refusals verify names, concurrency, and the
// same through the HTTP facilitator client.
import { createServer, type Server } from 'node:http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { toHex, type Address, type LocalAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { anvilDevAccount } from '../../../../src/chain/local-chain.ts';
import type { ChainSettings } from '../../../../src/chain/settings.ts';
import { testUsdcAbi } from '../../../../src/chain/test-usdc.ts';
import {
  createLocalFacilitator,
  createRemoteFacilitator,
  type PaymentFacilitator,
} from '../../../../src/payments/methods/x402/facilitator.ts';
import { matchRequirement } from '../../../../src/payments/methods/x402/payment-header.ts';
import { paymentRequirementsFor } from '../../../../src/payments/methods/x402/requirements.ts';
import { useLocalChain } from '../../../helpers/chain.ts';
import { listenLocally } from '../../../../harness/local-server.ts';
import { pay } from '../../../../harness/x402-paying-client.ts';

const chain = useLocalChain();
const price = 10_000n; // one cent
const payer = anvilDevAccount(1) as LocalAccount;
const payTo = anvilDevAccount(2).address;
const facilitatorAccount = anvilDevAccount(3);
const poorPayer = anvilDevAccount(4) as LocalAccount; // no USDC
const stranger = anvilDevAccount(5).address;

let required: PaymentRequired;
let requirement: PaymentRequirements;
let facilitator: ReturnType<typeof createLocalFacilitator>;
let otherToken: Address;

/** The same offer, changed: what a client is made to sign when it is shown something else than we check against. */
const offer = (change: Partial<PaymentRequirements>): PaymentRequired => ({
  ...required,
  accepts: [{ ...requirement, ...change }],
});

const usdcBalance = (who: Address) =>
  chain.publicClient.readContract({
    address: chain.usdcAddress,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [who],
  });
const balances = async () => ({ payer: await usdcBalance(payer.address), payTo: await usdcBalance(payTo) });
const sentTransactions = () => chain.publicClient.getTransactionCount({ address: facilitatorAccount.address });

beforeAll(async () => {
  const settings: ChainSettings = {
    chain: 'base',
    rpcUrl: chain.rpcUrl,
    usdcAddress: chain.usdcAddress,
    confirmations: 1,
    local: true,
    chainId: chain.chainId,
  };
  required = paymentRequirementsFor({
    chains: [settings],
    payTo,
    amountMicros: price,
    maxTimeoutSeconds: 120,
    resource: { url: 'http://gateway.test/v1/generate', description: 'one generation', mimeType: 'application/json' },
  });
  requirement = required.accepts[0]!;
  facilitator = createLocalFacilitator({
    chains: [settings],
    schemes: ['exact'],
    privateKey: toHex(facilitatorAccount.getHdKey().privateKey!),
  });
  await chain.mint(payer.address, 10_000_000n);
  otherToken = await chain.deployOtherToken();
});

describe('createLocalFacilitator', () => {
  let settled: PaymentPayload;

  it('serves one network per chain, with the given account', () => {
    expect(facilitator.networks).toEqual([`eip155:${chain.chainId}`]);
    expect(facilitator.address).toBe(facilitatorAccount.address);
  });

  it('verifies a payload from the x402 client as valid', async () => {
    const { payload } = await pay(required, payer);
    expect(matchRequirement(required.accepts, payload)).toEqual(requirement);
    expect(await facilitator.verify(payload, requirement)).toEqual({ isValid: true, payer: payer.address });
    settled = payload;
  });

  it('settles it: exactly the price moves from the payer to payTo, and the facilitator pays the gas', async () => {
    const before = await balances();
    const payerEth = await chain.publicClient.getBalance({ address: payer.address });
    const facilitatorEth = await chain.publicClient.getBalance({ address: facilitatorAccount.address });

    const result = await facilitator.settle(settled, requirement);

    expect(result).toEqual({
      success: true,
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      network: requirement.network,
      payer: payer.address,
    });
    expect(await balances()).toEqual({ payer: before.payer - price, payTo: before.payTo + price });
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: result.transaction as `0x${string}` });
    expect(receipt).toMatchObject({ status: 'success', from: facilitatorAccount.address.toLowerCase() });
    expect(receipt.to).toBe(chain.usdcAddress.toLowerCase());
    expect(await chain.publicClient.getBalance({ address: facilitatorAccount.address })).toBe(
      facilitatorEth - receipt.gasUsed * receipt.effectiveGasPrice,
    );
    expect(await chain.publicClient.getBalance({ address: payer.address })).toBe(payerEth);
  });

  it('refuses to settle the same payload again: the nonce is spent, nothing moves, no transaction is sent', async () => {
    const before = await balances();
    const sent = await sentTransactions();
    const again = await facilitator.settle(settled, requirement);
    expect(again).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_nonce_already_used',
      transaction: '',
      payer: payer.address,
    });
    expect(await facilitator.verify(settled, requirement)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_nonce_already_used',
    });
    expect(await balances()).toEqual(before);
    expect(await sentTransactions()).toBe(sent);
  });

  const invalid: Array<[string, () => Promise<PaymentPayload>, string]> = [
    [
      'amount too low',
      async () => (await pay(offer({ amount: String(price - 1n) }), payer)).payload,
      'invalid_exact_evm_payload_authorization_value_mismatch',
    ],
    [
      'another payTo',
      async () => (await pay(offer({ payTo: stranger }), payer)).payload,
      'invalid_exact_evm_recipient_mismatch',
    ],
    // Signed for another token's EIP-712 domain: not a signature for ours.
    [
      'another asset',
      async () => (await pay(offer({ asset: otherToken }), payer)).payload,
      'invalid_exact_evm_signature',
    ],
    [
      'another network',
      async () => (await pay(offer({ network: 'eip155:1' }), payer)).payload,
      'invalid_exact_evm_network_mismatch',
    ],
    [
      'tampered signature',
      async () => {
        const { payload } = await pay(required, payer);
        const inner = payload.payload as { signature: string };
        const flipped = inner.signature[20] === 'a' ? 'b' : 'a';
        inner.signature = inner.signature.slice(0, 20) + flipped + inner.signature.slice(21);
        return payload;
      },
      'invalid_exact_evm_signature',
    ],
    [
      'payer without funds',
      async () => (await pay(required, poorPayer)).payload,
      'invalid_exact_evm_insufficient_balance',
    ],
  ];

  it.each(invalid)('verify refuses a payload with %s', async (_case, payloadFor, reason) => {
    const payload = await payloadFor();
    const result = await facilitator.verify(payload, requirement);
    expect(result).toMatchObject({ isValid: false, invalidReason: reason });
  });

  it('verify refuses a payload once its time window has passed', async () => {
    const { payload } = await pay(required, payer);
    const validBefore = Number(
      (payload.payload as { authorization: { validBefore: string } }).authorization.validBefore,
    );
    vi.useFakeTimers({ toFake: ['Date'], now: (validBefore + 1) * 1000 });
    try {
      expect(await facilitator.verify(payload, requirement)).toMatchObject({
        isValid: false,
        invalidReason: 'invalid_exact_evm_payload_authorization_valid_before',
      });
    } finally {
      vi.useRealTimers();
    }
    expect(await facilitator.verify(payload, requirement)).toMatchObject({ isValid: true });
  });

  it('settle of an invalid payload sends nothing', async () => {
    const { payload } = await pay(offer({ amount: String(price * 2n) }), payer);
    const sent = await sentTransactions();
    expect(await facilitator.settle(payload, requirement)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_payload_authorization_value_mismatch',
      transaction: '',
    });
    expect(await sentTransactions()).toBe(sent);
  });

  it('settles several payments at once from one account (its nonces managed)', async () => {
    const payloads = await Promise.all([1, 2, 3].map(async () => (await pay(required, payer)).payload));
    const before = await balances();
    const results = await Promise.all(payloads.map((payload) => facilitator.settle(payload, requirement)));
    expect(results.map((result) => result.success)).toEqual([true, true, true]);
    expect(new Set(results.map((result) => result.transaction)).size).toBe(3);
    expect(await balances()).toEqual({ payer: before.payer - 3n * price, payTo: before.payTo + 3n * price });
  });

  it('settles valid payments sent beside ones the chain refuses at once: no nonce is left unused ahead of them', async () => {
    // Verified, then refused at the send (the payer's funds gone, a nonce spent): viem has handed out a nonce by then.
    const spender = anvilDevAccount(6) as LocalAccount;
    await chain.mint(spender.address, price * 3n);
    const doomed = await Promise.all([1, 2, 3].map(async () => (await pay(required, spender)).payload));
    await chain.transfer({ from: spender, to: stranger, amount: await usdcBalance(spender.address) });
    const valid = await Promise.all([1, 2, 3].map(async () => (await pay(required, payer)).payload));
    const before = await balances();
    const sent = await sentTransactions();
    // A settlement stuck behind a nonce gap waits for a receipt that never comes: bounded far above a local settle.
    const bound = new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 20_000).unref());
    const results = await Promise.race([
      Promise.all([...doomed, ...valid].map((payload) => facilitator.settle(payload, requirement))),
      bound,
    ]);
    expect(results).not.toBe('stuck');
    const outcomes = (results as Awaited<ReturnType<PaymentFacilitator['settle']>>[]).map((result) => result.success);
    expect(outcomes).toEqual([false, false, false, true, true, true]);
    expect(await balances()).toEqual({ payer: before.payer - 3n * price, payTo: before.payTo + 3n * price });
    expect(await sentTransactions()).toBe(sent + 3);
  });

  it('settles one payload twice at once only once, without sending the second', async () => {
    const { payload } = await pay(required, payer);
    const before = await balances();
    const sent = await sentTransactions();
    const results = await Promise.all([
      facilitator.settle(payload, requirement),
      facilitator.settle(payload, requirement),
    ]);
    expect(results.map((result) => result.success).sort()).toEqual([false, true]);
    expect(results.find((result) => !result.success)).toMatchObject({
      errorReason: 'invalid_exact_evm_nonce_already_used',
      transaction: '',
    });
    expect(await sentTransactions()).toBe(sent + 1); // the second never reached the chain
    expect(await balances()).toEqual({ payer: before.payer - price, payTo: before.payTo + price });
  });

  it('answers for a network or scheme it does not serve instead of throwing', async () => {
    const { payload } = await pay(required, payer);
    const elsewhere = { ...requirement, network: 'eip155:1' as const };
    expect(await facilitator.verify(payload, elsewhere)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_network',
    });
    expect(await facilitator.settle(payload, { ...requirement, scheme: 'upto' })).toMatchObject({
      success: false,
      errorReason: 'unsupported_scheme',
      transaction: '',
    });
  });
});

describe('createRemoteFacilitator', () => {
  // A facilitator service in front of the local facilitator, answering refusals with 400 as services do.
  let server: Server;
  let remote: PaymentFacilitator;
  beforeAll(async () => {
    server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      const reply = (status: number, value: unknown) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (request.url === '/verify') {
        const result = await facilitator.verify(body.paymentPayload, body.paymentRequirements);
        return reply(result.isValid ? 200 : 400, result);
      }
      if (request.url === '/settle') {
        const result = await facilitator.settle(body.paymentPayload, body.paymentRequirements);
        return reply(result.success ? 200 : 400, result);
      }
      reply(404, { error: 'not found' });
    });
    remote = createRemoteFacilitator(`${(await listenLocally(server)).url}/`);
  });
  afterAll(() => new Promise((closed) => server?.close(closed)));

  it('verifies and settles through the HTTP client, and a refusal is a response, not a throw', async () => {
    const { payload } = await pay(required, payer);
    const before = await balances();
    expect(await remote.verify(payload, requirement)).toMatchObject({ isValid: true, payer: payer.address });
    expect(await remote.settle(payload, requirement)).toMatchObject({ success: true, payer: payer.address });
    expect(await balances()).toEqual({ payer: before.payer - price, payTo: before.payTo + price });

    expect(await remote.verify(payload, requirement)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_nonce_already_used',
      payer: payer.address,
    });
    expect(await remote.settle(payload, requirement)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_nonce_already_used',
      network: requirement.network,
    });
  });

  it('throws when the service fails otherwise', async () => {
    const broken = createRemoteFacilitator(`${(remote as PaymentFacilitator & { url: string }).url}/nowhere`);
    const { payload } = await pay(required, payer);
    await expect(broken.verify(payload, requirement)).rejects.toThrow(/404/);
  });
});

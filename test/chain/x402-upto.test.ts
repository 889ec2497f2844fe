// x402's `upto` scheme end to end on the local chain, with x402's own client, server and facilitator code: the payer
// signs a Permit2 transfer of at most the offered amount, the facilitator settles what the work actually cost.
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toFacilitatorEvmSigner, x402UptoPermit2ProxyABI, type UptoPermit2Payload } from '@x402/evm';
import { UptoEvmScheme as UptoClientScheme } from '@x402/evm/upto/client';
import { UptoEvmScheme as UptoFacilitatorScheme } from '@x402/evm/upto/facilitator';
import { UptoEvmScheme as UptoServerScheme } from '@x402/evm/upto/server';
import { maxUint256, parseEventLogs, publicActions, type Address, type Hex, type LocalAccount, zeroHash } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { anvilDevAccount, localChainClients } from '../../src/chain/local-chain.ts';
import { isPermit2NonceUsed, permit2Address } from '../../src/chain/permit2.ts';
import { testUsdcAbi } from '../../src/chain/test-usdc.ts';
import { uptoProxyAddress } from '../../src/chain/upto-contracts.ts';
import { chainSettingsOf, useLocalChain } from '../helpers/chain.ts';
import { findUptoSettlement } from '../../src/payments/methods/x402/settlement-lookup.ts';

const chain = useLocalChain();
const payer = anvilDevAccount(5) as LocalAccount; // holds ETH for its one approval of Permit2
const facilitatorAccount = anvilDevAccount(6);
const stranger = anvilDevAccount(7);
const payTo: Address = '0x00000000000000000000000000000000000F0402';
const maximum = 5_000_000n;

let network: `eip155:${number}`;
let facilitator: x402Facilitator;
let requirements: PaymentRequirements;

function walletClient(account: LocalAccount) {
  return localChainClients(chain.rpcUrl, chain.chainId).walletClient(account);
}

async function mined(hash: Hex) {
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status).toBe('success');
  return receipt;
}

/** What x402's HTTP client would send after a 402 offering `requirements`. */
async function signPayment(): Promise<PaymentPayload> {
  const { payload } = await new UptoClientScheme(payer).createPaymentPayload(2, requirements);
  return { x402Version: 2, accepted: requirements, payload, resource: { url: 'http://gateway.test/v1/tasks' } };
}

const permit2PayloadOf = (payment: PaymentPayload) => payment.payload as unknown as UptoPermit2Payload;

beforeAll(async () => {
  network = `eip155:${chain.chainId}`;
  await chain.mint(payer.address, 20_000_000n);
  await mined(
    await walletClient(payer).writeContract({
      address: chain.usdcAddress,
      abi: testUsdcAbi,
      functionName: 'approve',
      args: [permit2Address, maxUint256],
    }),
  );
  // As src/payments/methods/x402/facilitator.ts builds the `exact` one (and the same cast for viem 2.57's verifyTypedData types), plus
  // the `address` toFacilitatorEvmSigner reads for getAddresses(): upto checks the witness's facilitator against it.
  const client = walletClient(facilitatorAccount)
    .extend(publicActions)
    .extend(() => ({ address: facilitatorAccount.address }));
  const signer = toFacilitatorEvmSigner(client as unknown as Parameters<typeof toFacilitatorEvmSigner>[0]);
  facilitator = new x402Facilitator().register(network, new UptoFacilitatorScheme(signer));
  // The resource server's side: x402's upto server scheme adds what the facilitator's /supported answers.
  const kind = facilitator.getSupported().kinds.find((entry) => entry.scheme === 'upto' && entry.network === network)!;
  requirements = await new UptoServerScheme().enhancePaymentRequirements(
    {
      scheme: 'upto',
      network,
      asset: chain.usdcAddress,
      amount: maximum.toString(),
      payTo,
      maxTimeoutSeconds: 300,
      extra: { name: 'USD Coin', version: '2' },
    },
    { ...kind, network },
    [],
  );
});

describe("x402's upto scheme on the local chain", () => {
  it('offers a maximum with permit2 as the transfer method and the one facilitator that may settle', () => {
    expect(requirements).toEqual({
      scheme: 'upto',
      network,
      asset: chain.usdcAddress,
      amount: '5000000',
      payTo,
      maxTimeoutSeconds: 300,
      extra: {
        name: 'USD Coin',
        version: '2',
        assetTransferMethod: 'permit2',
        facilitatorAddress: facilitatorAccount.address,
      },
    });
  });

  it('verifies the maximum, settles a smaller amount once, and refuses the same payment again', async () => {
    const payment = await signPayment();
    const { permit2Authorization } = permit2PayloadOf(payment);
    expect(permit2Authorization).toMatchObject({
      from: payer.address,
      spender: uptoProxyAddress,
      permitted: { token: chain.usdcAddress, amount: '5000000' },
      witness: { to: payTo, facilitator: facilitatorAccount.address, validAfter: '0' },
    });
    expect(await facilitator.verify(payment, requirements)).toEqual({ isValid: true, payer: payer.address });

    const [payerBefore, payToBefore] = [await chain.balanceOf(payer.address), await chain.balanceOf(payTo)];
    // The actual amount goes in the requirements' `amount` given to settle: x402 checks the payment against the
    // signed maximum (permitted.amount), then calls the proxy's settle(permit, amount, …) with requirements.amount.
    const settled = await facilitator.settle(payment, { ...requirements, amount: '1234567' });
    expect(settled).toMatchObject({ success: true, payer: payer.address, network, amount: '1234567' });
    const receipt = await mined(settled.transaction as Hex);
    expect(parseEventLogs({ abi: x402UptoPermit2ProxyABI, logs: receipt.logs })).toMatchObject([
      { address: uptoProxyAddress.toLowerCase(), eventName: 'Settled', args: {} },
    ]);
    expect(await chain.balanceOf(payer.address)).toBe(payerBefore - 1_234_567n);
    expect(await chain.balanceOf(payTo)).toBe(payToBefore + 1_234_567n);

    // Permit2 spent the nonce: the same payment no longer simulates, whatever amount is asked.
    const nonce = BigInt(permit2Authorization.nonce);
    expect(await isPermit2NonceUsed(chain.publicClient, payer.address, nonce)).toBe(true);
    expect(await isPermit2NonceUsed(chain.publicClient, payer.address, nonce ^ 1n)).toBe(false);
    const again = await facilitator.settle(payment, { ...requirements, amount: '1' });
    expect(again).toMatchObject({ success: false, errorReason: 'permit2_simulation_failed', transaction: '' });
    expect(await chain.balanceOf(payTo)).toBe(payToBefore + 1_234_567n);
    // After a crash between sending and recording a settlement, the service finds it by the proxy call's calldata.
    const settings = chainSettingsOf(chain);
    expect(await findUptoSettlement(settings, { payer: payer.address, payTo, nonce })).toEqual({
      transaction: settled.transaction,
      amount: 1_234_567n,
    });
  });

  it('refuses to settle more than the signed maximum', async () => {
    const payment = await signPayment();
    const settled = await facilitator.settle(payment, { ...requirements, amount: (maximum + 1n).toString() });
    expect(settled).toMatchObject({
      success: false,
      errorReason: 'invalid_upto_evm_payload_settlement_exceeds_amount',
    });
  });

  // The proxy's own checks, calling it directly as x402's facilitator does (settle args as buildUptoPermit2SettleArgs).
  async function settleArgs(amount: bigint) {
    const { permit2Authorization: authorization, signature } = permit2PayloadOf(await signPayment());
    const permit = {
      permitted: { token: authorization.permitted.token, amount: BigInt(authorization.permitted.amount) },
      nonce: BigInt(authorization.nonce),
      deadline: BigInt(authorization.deadline),
    };
    const witness = { ...authorization.witness, validAfter: BigInt(authorization.witness.validAfter) };
    return [permit, amount, authorization.from, witness, signature] as const;
  }
  const eip2612Permit = (value: bigint) => ({ value, deadline: maxUint256, r: zeroHash, s: zeroHash, v: 27 });

  it.each([
    ['another caller than the witness names', stranger, 1n, 'UnauthorizedFacilitator'],
    ['more than the signed maximum', facilitatorAccount, maximum + 1n, 'AmountExceedsPermitted'],
  ])('refuses %s', async (_case, account, amount, error) => {
    const settle = chain.publicClient.simulateContract({
      account,
      address: uptoProxyAddress,
      abi: x402UptoPermit2ProxyABI,
      functionName: 'settle',
      args: await settleArgs(amount),
    });
    await expect(settle).rejects.toThrow(error);
  });

  it('settles with an EIP-2612 permit, ignoring a permit the token cannot take (Permit2 is approved already)', async () => {
    const args = await settleArgs(700_000n);
    const call = (value: bigint) => ({
      address: uptoProxyAddress,
      abi: x402UptoPermit2ProxyABI,
      functionName: 'settleWithPermit' as const,
      args: [eip2612Permit(value), ...args] as const,
    });
    await expect(
      chain.publicClient.simulateContract({ account: facilitatorAccount, ...call(maximum - 1n) }),
    ).rejects.toThrow('Permit2612AmountMismatch');
    const payToBefore = await chain.balanceOf(payTo);
    const receipt = await mined(await walletClient(facilitatorAccount).writeContract(call(maximum)));
    expect(parseEventLogs({ abi: x402UptoPermit2ProxyABI, logs: receipt.logs })).toMatchObject([
      { eventName: 'SettledWithPermit' },
    ]);
    expect(await chain.balanceOf(payTo)).toBe(payToBefore + 700_000n);
  });
});

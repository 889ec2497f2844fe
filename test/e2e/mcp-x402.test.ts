// x402 over MCP (x402's MCP transport): a keyless MCP client's generate call answers the PaymentRequired as a tool
// error; the same call with x402's own client's payload in `_meta["x402/payment"]` runs the task, settled on the real
// local chain only once its output is stored, once however often the paid call is repeated; the task's token reads
// it, with the settlement in `_meta["x402/payment-response"]`. top_up pays a key's balance the same way, credited
// once, its signed receipt in the result's `_meta`.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { type JWSSignedReceipt, verifyReceiptSignatureJWS } from '@x402/extensions/offer-receipt';
import type { Address, LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { developmentPayTo } from '../../src/config/config.ts';
import { createAgentWithKey, createDeveloperWithKey } from '../helpers/accounts.ts';
import { useLocalChain, x402OnLocalChain } from '../helpers/chain.ts';
import { useGateway } from '../helpers/gateway.ts';
import { useMcpClients } from '../helpers/mcp-client.ts';

const chain = useLocalChain();
const gateway = useGateway(() => x402OnLocalChain(chain));
const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Paid for over MCP.' };

const connect = useMcpClients(() => gateway.app.url);

describe('x402 over MCP', () => {
  it('asks for a payment, runs the task it pays for, settles it once, and reads it with its token', async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await chain.mint(payer.address, 2_000_000n);
    const client = await connect();

    const asked = (await client.callTool({ name: 'generate', arguments: speech })) as CallToolResult;
    expect(asked.isError).toBe(true);
    const required = asked.structuredContent as unknown as PaymentRequired;
    expect(required).toMatchObject({
      x402Version: 2,
      accepts: expect.arrayContaining([expect.objectContaining({ scheme: 'exact' })]),
    });
    expect(JSON.parse((asked.content[0] as { text: string }).text)).toEqual(required);

    const payment = await paymentFor(required, payer);
    const price = BigInt(payment.accepted.amount);
    const payToBefore = await chain.balanceOf(developmentPayTo as Address);

    const paidCall = () =>
      client.callTool({
        name: 'generate',
        arguments: { ...speech, wait_seconds: 120 },
        _meta: { 'x402/payment': payment },
      }) as Promise<CallToolResult>;
    const paid = await paidCall();
    expect(paid.isError, JSON.stringify(paid.structuredContent)).toBeFalsy();
    const task = paid.structuredContent as { id: string; status: string; output: string; access_token: string };
    expect(task).toMatchObject({ status: 'completed', access_token: expect.stringMatching(/^tt_/) });
    expect((await fetch(task.output)).status).toBe(200);

    // The same payment again is the same task: nothing more moves. Its task has started, so whoever repeats the
    // payment learns the task only, not its token (issue 35, point 14).
    const again = await paidCall();
    expect(again.isError, JSON.stringify(again.structuredContent)).toBeFalsy();
    expect((again.structuredContent as { id: string }).id).toBe(task.id);
    expect(again.structuredContent).not.toHaveProperty('access_token');
    expect(await chain.balanceOf(payer.address)).toBe(2_000_000n - price);
    expect(await chain.balanceOf(developmentPayTo as Address)).toBe(payToBefore + price);

    const reader = await connect(task.access_token);
    const read = (await reader.callTool({ name: 'get_generation', arguments: { id: task.id } })) as CallToolResult;
    expect(read.structuredContent).toMatchObject({ id: task.id, status: 'completed' });
    expect(read._meta?.['x402/payment-response']).toMatchObject({
      success: true,
      payer: payer.address.toLowerCase(),
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
  }, 240_000);
});

/** x402's own client paying `required` from `payer`, the local chain's test token allowed by name. */
function paymentFor(required: PaymentRequired, payer: LocalAccount): Promise<PaymentPayload> {
  const wallet = new x402Client();
  registerExactEvmScheme(wallet, { signer: payer, networks: [`eip155:${chain.chainId}`] });
  wallet.setSpendControls({
    allowedAssets: required.accepts.map(({ network, asset, amount }) => ({
      network,
      asset,
      maxAmountPerPayment: amount,
    })),
  });
  return wallet.createPaymentPayload(required);
}

const topUp = (client: Client, amount: string, payment?: PaymentPayload) =>
  client.callTool({
    name: 'top_up',
    arguments: { amount },
    ...(payment && { _meta: { 'x402/payment': payment } }),
  }) as Promise<CallToolResult>;

const micros = (usd: string) => BigInt(Math.round(Number(usd) * 1e6));

describe('top_up over MCP', () => {
  it("asks for the amount, credits it once when paid, and carries the signed receipt in the result's _meta", async () => {
    const agent = await createAgentWithKey(gateway.database.prisma);
    const payer = privateKeyToAccount(generatePrivateKey());
    await chain.mint(payer.address, 5_000_000n);
    const client = await connect(agent.apiKey.key);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'top_up')?._meta).toEqual({ 'x402/paid': true });
    const balanceOf = async () =>
      micros(((await client.callTool({ name: 'get_balance', arguments: {} })).structuredContent as any).balance);
    const before = await balanceOf();

    const asked = await topUp(client, '1.50');
    expect(asked.isError).toBe(true);
    const required = asked.structuredContent as unknown as PaymentRequired;
    expect(required).toMatchObject({
      x402Version: 2,
      resource: { url: `${gateway.app.url}/api/v1/agents/topup` },
      accepts: [expect.objectContaining({ scheme: 'exact', amount: '1500000', asset: chain.usdcAddress })],
    });
    expect(await balanceOf()).toBe(before);

    const payment = await paymentFor(required, payer);
    const paid = await topUp(client, '1.50', payment);
    expect(paid.isError, JSON.stringify(paid.structuredContent)).toBeFalsy();
    const body = paid.structuredContent as Record<string, any>;
    expect(body).toMatchObject({ status: 'settled', amount: '1.50', payer: payer.address.toLowerCase() });
    expect(micros(body.balance)).toBe(before + 1_500_000n);
    expect(await balanceOf()).toBe(before + 1_500_000n);
    expect(await chain.balanceOf(payer.address)).toBe(5_000_000n - 1_500_000n);

    // The settlement as x402's MCP transport answers it, with the offer-receipt extension's signed receipt.
    const settlement = paid._meta?.['x402/payment-response'] as Record<string, any>;
    expect(settlement).toMatchObject({ success: true, transaction: body.transaction, payer: body.payer });
    const receipt = settlement.extensions['offer-receipt'].info.receipt as JWSSignedReceipt;
    expect(receipt).toEqual(body.receipt);
    expect(await verifyReceiptSignatureJWS(receipt)).toMatchObject({
      kind: 'top_up',
      id: body.top_up_id,
      amount: '1500000',
      transaction: body.transaction,
    });

    // The same payment again is the same top-up: nothing more moves or is credited.
    const again = await topUp(client, '1.50', payment);
    expect(again.structuredContent).toMatchObject({ top_up_id: body.top_up_id, balance: body.balance });
    expect(await balanceOf()).toBe(before + 1_500_000n);
    expect(await chain.balanceOf(payer.address)).toBe(5_000_000n - 1_500_000n);
    const credits = await gateway.database.prisma.ledgerEntry.count({
      where: { accountId: agent.agentId, kind: 'x402_topup' },
    });
    expect(credits).toBe(1);
  }, 120_000);

  it("offers a developer key its account's top-up, and a keyless call the requirements only", async () => {
    const developer = await createDeveloperWithKey(gateway.database.prisma);
    const asked = await topUp(await connect(developer.apiKey.key), '2.00');
    expect(asked.isError).toBe(true);
    expect(asked.structuredContent).toMatchObject({
      resource: { url: `${gateway.app.url}/api/v1/account/topup` },
      accepts: [expect.objectContaining({ amount: '2000000' })],
    });

    const keyless = await connect();
    expect((await topUp(keyless, '2.00')).structuredContent).toMatchObject({
      accepts: [expect.objectContaining({ amount: '2000000' })],
    });
    // Paid without a key, nothing is credited: whose balance would it be?
    const payer = privateKeyToAccount(generatePrivateKey());
    await chain.mint(payer.address, 5_000_000n);
    const required = (await topUp(keyless, '2.00')).structuredContent as unknown as PaymentRequired;
    const refused = await topUp(keyless, '2.00', await paymentFor(required, payer));
    expect(refused).toMatchObject({ isError: true, structuredContent: { error: 'unauthorized' } });
    expect(await chain.balanceOf(payer.address)).toBe(5_000_000n);
  });
});

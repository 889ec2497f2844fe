// x402 over MCP (x402's MCP transport): a keyless MCP client's generate call answers the PaymentRequired as a tool
// error; the same call with x402's own client's payload in `_meta["x402/payment"]` runs the task, settled on the real
// local chain only once its output is stored, once however often the paid call is repeated; the task's token reads
// it, with the settlement in `_meta["x402/payment-response"]`.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402Client } from '@x402/core/client';
import type { PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { developmentPayTo } from '../../src/config/config.ts';
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

    const wallet = new x402Client();
    registerExactEvmScheme(wallet, { signer: payer, networks: [`eip155:${chain.chainId}`] });
    // The local chain's test token is no default asset of x402's client: allowed here by name, as a payer would.
    wallet.setSpendControls({
      allowedAssets: required.accepts.map(({ network, asset, amount }) => ({
        network,
        asset,
        maxAmountPerPayment: amount,
      })),
    });
    const payment = await wallet.createPaymentPayload(required);
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

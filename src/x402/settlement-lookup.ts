// Whether an authorization was already spent by a transfer to us: a settlement retried after a crash meets the spent
// nonce, and must tell our own earlier transfer (settled) from a payer's cancellation (not paid). EIP-3009 names the
// nonce in an event; Permit2 does not, so an `upto` transfer is found by its call to x402's proxy.
import { x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress } from '@x402/evm';
import { decodeFunctionData, erc20Abi, type Hex, parseAbiItem, parseEventLogs, type PublicClient } from 'viem';
import { chainClient } from '../chain/deposit-inspection.ts';
import type { ChainSettings } from '../chain/settings.ts';

const authorizationUsed = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');

/** How far back to look for the authorization's use: hours on any chain, well beyond an x402 validity window. */
const lookbackBlocks = 20_000n;

export interface SpentAuthorization {
  payer: Hex;
  nonce: Hex;
  payTo: Hex;
  amount: bigint;
}

/**
 * The hash of the transaction that spent the authorization by paying `amount` from `payer` to `payTo` in the chain's
 * USDC; null when the nonce was spent otherwise (cancelled) or not found in the recent blocks.
 */
export async function findSettlementTransaction(
  settings: ChainSettings,
  spent: SpentAuthorization,
): Promise<Hex | null> {
  const client = chainClient(settings.rpcUrl);
  const logs = await client.getLogs({
    address: settings.usdcAddress,
    event: authorizationUsed,
    args: { authorizer: spent.payer, nonce: spent.nonce },
    ...(await recentBlocks(client)),
  });
  for (const log of logs) {
    const receipt = await client.getTransactionReceipt({ hash: log.transactionHash });
    if (receipt.status !== 'success') continue;
    const transfers = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs });
    const paid = transfers.some(
      (transfer) =>
        transfer.address.toLowerCase() === settings.usdcAddress.toLowerCase() &&
        transfer.args.from.toLowerCase() === spent.payer.toLowerCase() &&
        transfer.args.to.toLowerCase() === spent.payTo.toLowerCase() &&
        transfer.args.value === spent.amount,
    );
    if (paid) return log.transactionHash;
  }
  return null;
}

async function recentBlocks(client: PublicClient) {
  const head = await client.getBlockNumber();
  return { fromBlock: head > lookbackBlocks ? head - lookbackBlocks : 0n, toBlock: head };
}

/**
 * The transaction and amount of an `upto` settlement of this Permit2 nonce: a USDC transfer from the payer to
 * `payTo` made by a call to x402's upto proxy carrying that owner and nonce. Null when there is none recently.
 */
export async function findUptoSettlement(
  settings: ChainSettings,
  spent: { payer: Hex; nonce: bigint; payTo: Hex },
): Promise<{ transaction: Hex; amount: bigint } | null> {
  const client = chainClient(settings.rpcUrl);
  const transfers = await client.getLogs({
    address: settings.usdcAddress,
    event: erc20Abi.find((item) => item.type === 'event' && item.name === 'Transfer')!,
    args: { from: spent.payer, to: spent.payTo },
    ...(await recentBlocks(client)),
  });
  for (const transfer of transfers) {
    const sent = await client.getTransaction({ hash: transfer.transactionHash });
    if (sent.to?.toLowerCase() !== x402UptoPermit2ProxyAddress.toLowerCase()) continue;
    let call;
    try {
      call = decodeFunctionData({ abi: x402UptoPermit2ProxyABI, data: sent.input });
    } catch {
      continue;
    }
    if (call.functionName !== 'settle' && call.functionName !== 'settleWithPermit') continue;
    // settleWithPermit takes the EIP-2612 permit first; the Permit2 permit, amount and owner follow as in settle.
    const args = (call.functionName === 'settle' ? call.args : call.args.slice(1)) as unknown as [
      { nonce: bigint },
      bigint,
      Hex,
    ];
    const [permit, , owner] = args;
    if (permit.nonce === spent.nonce && owner.toLowerCase() === spent.payer.toLowerCase())
      return { transaction: transfer.transactionHash, amount: transfer.args.value! };
  }
  return null;
}

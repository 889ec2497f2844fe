// Whether an EIP-3009 authorization was already spent by a transfer to us: a settlement retried after a crash meets
// the spent nonce, and must tell our own earlier transfer (settled) from a payer's cancelAuthorization (not paid).
import { erc20Abi, type Hex, parseAbiItem, parseEventLogs } from 'viem';
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
  const head = await client.getBlockNumber();
  const logs = await client.getLogs({
    address: settings.usdcAddress,
    event: authorizationUsed,
    args: { authorizer: spent.payer, nonce: spent.nonce },
    fromBlock: head > lookbackBlocks ? head - lookbackBlocks : 0n,
    toBlock: head,
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

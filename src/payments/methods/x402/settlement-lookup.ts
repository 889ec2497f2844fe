// What the chain says about an x402 authorization: whether its nonce is spent, whether our own transfer spent it,
// and whether the payer can still pay. Settlement asks after any failure instead of trusting a reason string: a
// retry after a crash meets the spent nonce, and must tell our earlier transfer from a payer's cancellation.
import { eip3009ABI, x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress } from '@x402/evm';
import {
  type Address,
  decodeFunctionData,
  erc20Abi,
  type Hex,
  parseAbiItem,
  parseEventLogs,
  type PublicClient,
} from 'viem';
import { chainClient } from '../../../chain/deposit-inspection.ts';
import { isPermit2NonceUsed, permit2Address } from '../../../chain/permit2.ts';
import type { ChainSettings } from '../../../chain/settings.ts';

const authorizationUsed = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');
const transferEvent = erc20Abi.find((item) => item.type === 'event' && item.name === 'Transfer')!;

/** How far back to look for the authorization's use: hours on any chain, well beyond an x402 validity window. */
const lookbackBlocks = 20_000n;
/** Blocks per getLogs call: RPC nodes cap the range of one call. */
const blocksPerCall = 2_000n;

/** One x402 authorization: `nonce` is EIP-3009's bytes32 hex (`exact`) or Permit2's uint256 in decimal (`upto`). */
export interface Authorization {
  scheme: string;
  payer: Address;
  payTo: Address;
  nonce: string;
}

export interface FoundSettlement {
  transaction: Hex;
  amount: bigint;
}

/** Whether the token (EIP-3009) or Permit2 (`upto`) has spent the authorization's nonce. */
export async function isAuthorizationSpent(settings: ChainSettings, authorization: Authorization): Promise<boolean> {
  const client = chainClient(settings.rpcUrl);
  if (authorization.scheme === 'upto')
    return isPermit2NonceUsed(client, authorization.payer, BigInt(authorization.nonce));
  return client.readContract({
    address: settings.usdcAddress,
    abi: eip3009ABI,
    functionName: 'authorizationState',
    args: [authorization.payer, authorization.nonce as Hex],
  });
}

/** Whether the payer's balance (and, for `upto`, its Permit2 allowance) still covers `amount`. */
export async function payerCovers(
  settings: ChainSettings,
  authorization: Authorization,
  amount: bigint,
): Promise<boolean> {
  const client = chainClient(settings.rpcUrl);
  const token = { address: settings.usdcAddress, abi: erc20Abi } as const;
  const balance = await client.readContract({ ...token, functionName: 'balanceOf', args: [authorization.payer] });
  if (balance < amount) return false;
  if (authorization.scheme !== 'upto') return true;
  const allowance = await client.readContract({
    ...token,
    functionName: 'allowance',
    args: [authorization.payer, permit2Address],
  });
  return allowance >= amount;
}

/** Our own transfer that spent the authorization, or null when none is found in the recent blocks. */
export function findSettlement(settings: ChainSettings, authorization: Authorization): Promise<FoundSettlement | null> {
  return authorization.scheme === 'upto'
    ? findUptoSettlement(settings, { ...authorization, nonce: BigInt(authorization.nonce) })
    : findExactSettlement(settings, authorization);
}

/** Reads logs newest range first, a capped range per call, until `found` answers or the lookback is used up. */
async function searchRecentLogs<T>(
  client: PublicClient,
  read: (fromBlock: bigint, toBlock: bigint) => Promise<T | null>,
): Promise<T | null> {
  const head = await client.getBlockNumber();
  const oldest = head > lookbackBlocks ? head - lookbackBlocks : 0n;
  for (let toBlock = head; toBlock >= oldest; toBlock -= blocksPerCall) {
    const fromBlock = toBlock - blocksPerCall + 1n > oldest ? toBlock - blocksPerCall + 1n : oldest;
    const found = await read(fromBlock, toBlock);
    if (found) return found;
    if (fromBlock === oldest) break;
  }
  return null;
}

/** EIP-3009 names the nonce in AuthorizationUsed; its transaction must carry our USDC transfer from the payer. */
async function findExactSettlement(
  settings: ChainSettings,
  authorization: Authorization,
): Promise<FoundSettlement | null> {
  const client = chainClient(settings.rpcUrl);
  return searchRecentLogs(client, async (fromBlock, toBlock) => {
    const logs = await client.getLogs({
      address: settings.usdcAddress,
      event: authorizationUsed,
      args: { authorizer: authorization.payer, nonce: authorization.nonce as Hex },
      fromBlock,
      toBlock,
    });
    for (const log of logs) {
      const receipt = await client.getTransactionReceipt({ hash: log.transactionHash });
      if (receipt.status !== 'success') continue;
      const transfer = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs }).find(
        ({ address, args }) =>
          address.toLowerCase() === settings.usdcAddress.toLowerCase() &&
          args.from.toLowerCase() === authorization.payer.toLowerCase() &&
          args.to.toLowerCase() === authorization.payTo.toLowerCase(),
      );
      if (transfer) return { transaction: log.transactionHash, amount: transfer.args.value };
    }
    return null;
  });
}

/**
 * Permit2 names no nonce in any event: an `upto` settlement is a USDC transfer from the payer to `payTo` made by a
 * call to x402's upto proxy whose calldata carries that owner and nonce.
 */
export async function findUptoSettlement(
  settings: ChainSettings,
  spent: { payer: Hex; nonce: bigint; payTo: Hex },
): Promise<FoundSettlement | null> {
  const client = chainClient(settings.rpcUrl);
  return searchRecentLogs(client, async (fromBlock, toBlock) => {
    const transfers = await client.getLogs({
      address: settings.usdcAddress,
      event: transferEvent,
      args: { from: spent.payer, to: spent.payTo },
      fromBlock,
      toBlock,
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
  });
}

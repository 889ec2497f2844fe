// What a chain says about a deposit transaction: whether it is mined, whether it succeeded, and which USDC
// transfers it made. Only Transfer logs emitted by the configured USDC contract count, and only those that move
// something; any other token does not.
import {
  createPublicClient,
  erc20Abi,
  type Hex,
  http,
  parseEventLogs,
  type PublicClient,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
} from 'viem';
import type { ChainSettings } from './settings.ts';

export interface UsdcTransfer {
  /** Its place among the receipt's USDC transfers: unlike the log index, a reorganisation does not change it. */
  transferIndex: number;
  logIndex: number;
  from: string;
  /** Lowercase. */
  to: string;
  /** USDC base units (6 decimals) as a decimal string: activity payloads are JSON. */
  amount: string;
}

export type TransactionInspection =
  /** No receipt (yet): `pending` when the node knows the transaction, so it may still be mined. */
  | { kind: 'missing'; pending: boolean }
  | { kind: 'reverted'; blockNumber: string; blockHash: string }
  | {
      kind: 'mined';
      blockNumber: string;
      blockHash: string;
      usdcTransfers: UsdcTransfer[];
      /** A Transfer of any other token: a deposit of the wrong asset, when no USDC moved. */
      otherTokenTransfer: boolean;
    };

const clients = new Map<string, PublicClient>();

/** One client per RPC URL, without viem's block-number cache: confirmations are counted from fresh reads. */
export function chainClient(rpcUrl: string): PublicClient {
  let client = clients.get(rpcUrl);
  if (!client) {
    client = createPublicClient({ transport: http(rpcUrl, { timeout: 10_000, retryCount: 0 }), cacheTime: 0 });
    clients.set(rpcUrl, client);
  }
  return client;
}

async function isPending(client: PublicClient, hash: Hex): Promise<boolean> {
  try {
    await client.getTransaction({ hash });
    return true;
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return false;
    throw error;
  }
}

export async function inspectTransaction(settings: ChainSettings, hash: Hex): Promise<TransactionInspection> {
  const client = chainClient(settings.rpcUrl);
  let receipt;
  try {
    receipt = await client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError)
      return { kind: 'missing', pending: await isPending(client, hash) };
    throw error;
  }
  const block = { blockNumber: receipt.blockNumber.toString(), blockHash: receipt.blockHash };
  if (receipt.status !== 'success') return { kind: 'reverted', ...block };
  const transfers = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs, strict: false });
  const usdc = settings.usdcAddress.toLowerCase();
  const isUsdc = (log: (typeof transfers)[number]) => log.address.toLowerCase() === usdc;
  // A zero-value transfer moves nothing (address-poisoning bots send them): it is no deposit.
  const usdcTransfers = transfers
    .filter(isUsdc)
    .flatMap(({ logIndex, args: { from, to, value } }, transferIndex) =>
      from && to && value !== undefined && value > 0n
        ? [{ transferIndex, logIndex, from: from.toLowerCase(), to: to.toLowerCase(), amount: value.toString() }]
        : [],
    );
  return { kind: 'mined', ...block, usdcTransfers, otherTokenTransfer: transfers.some((log) => !isUsdc(log)) };
}

/** The chain's head block number. */
export async function headBlock(settings: ChainSettings): Promise<bigint> {
  return chainClient(settings.rpcUrl).getBlockNumber({ cacheTime: 0 });
}

const transferEvent = erc20Abi.find((item) => item.type === 'event' && item.name === 'Transfer');

/** USDC Transfer logs of the configured contract in a block range: `to` lowercase, with their transaction. */
export async function usdcTransferLogs(settings: ChainSettings, fromBlock: bigint, toBlock: bigint) {
  const logs = await chainClient(settings.rpcUrl).getLogs({
    address: settings.usdcAddress,
    event: transferEvent as Extract<(typeof erc20Abi)[number], { type: 'event'; name: 'Transfer' }>,
    fromBlock,
    toBlock,
  });
  return logs.flatMap((log) =>
    log.args.to && log.args.value !== undefined && log.args.value > 0n && log.transactionHash
      ? [{ to: log.args.to.toLowerCase(), txHash: log.transactionHash }]
      : [],
  );
}

// The deposit watcher: reads each enabled chain's new USDC Transfer logs and finds the transactions that paid an
// agent's deposit address, so they are credited even if nobody calls POST /agents/deposit.
import { headBlock, usdcTransferLogs } from '../../chain/deposit-inspection.ts';
import type { ChainSettings } from '../../chain/settings.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import { agentsByDepositAddress } from './addresses.ts';

export interface ScanWindow {
  fromBlock: bigint;
  toBlock: bigint;
}

export interface ScanLimits {
  /** Where a chain's first scan starts: this many blocks before the head. */
  lookbackBlocks: number;
  /** At most this many blocks per scan (RPC nodes cap getLogs ranges). */
  maxBlocks: number;
}

/** The blocks to read next, or null when the watcher is at the head. */
export async function nextScanWindow(
  prisma: PrismaClient,
  settings: ChainSettings,
  limits: ScanLimits,
): Promise<ScanWindow | null> {
  const head = await headBlock(settings);
  const cursor = await prisma.chainCursor.findUnique({ where: { chain: settings.chain } });
  const fromBlock = cursor?.nextBlock ?? maxOf(0n, head - BigInt(limits.lookbackBlocks));
  if (fromBlock > head) return null;
  const toBlock = minOf(head, fromBlock + BigInt(limits.maxBlocks) - 1n);
  return { fromBlock, toBlock };
}

/** The transactions in the window that paid USDC to one of our agents. */
export async function agentDepositsIn(prisma: PrismaClient, settings: ChainSettings, window: ScanWindow) {
  const logs = await usdcTransferLogs(settings, window.fromBlock, window.toBlock);
  if (logs.length === 0) return [];
  const agents = await agentsByDepositAddress(
    prisma,
    logs.map((log) => log.to),
  );
  return [...new Set(logs.filter((log) => agents.has(log.to)).map((log) => log.txHash.toLowerCase()))];
}

/** Moves the cursor past the window, once its deposits are in their workflows' hands. */
export async function advanceScanCursor(prisma: PrismaClient, chain: string, window: ScanWindow): Promise<void> {
  const nextBlock = window.toBlock + 1n;
  await prisma.chainCursor.upsert({ where: { chain }, create: { chain, nextBlock }, update: { nextBlock } });
}

const maxOf = (a: bigint, b: bigint) => (a > b ? a : b);
const minOf = (a: bigint, b: bigint) => (a < b ? a : b);

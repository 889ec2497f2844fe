// The deposit watcher: reads each enabled chain's new USDC Transfer logs and finds the transactions that paid an
// agent's deposit address, so they are credited even if nobody calls POST /agents/deposit.
import { headBlock, usdcTransferLogs } from '../chain/deposit-inspection.ts';
import type { ChainSettings } from '../chain/settings.ts';
import type { PrismaClient } from '../db/prisma.ts';
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

/**
 * The blocks to read next: the new ones, and again the last `confirmations` blocks already read, since a
 * reorganisation within that depth may have replaced them (a transfer mined only in the new blocks is found then).
 * Null when there is nothing to read.
 */
export async function nextScanWindow(
  prisma: PrismaClient,
  settings: ChainSettings,
  limits: ScanLimits,
): Promise<ScanWindow | null> {
  const head = await headBlock(settings);
  const cursor = await prisma.chainCursor.findUnique({ where: { chain: settings.chain } });
  const unread = cursor?.nextBlock ?? maxOf(0n, head - BigInt(limits.lookbackBlocks));
  const fromBlock = maxOf(0n, unread - BigInt(settings.confirmations));
  if (fromBlock > head) return null;
  // The window always reaches past what was read (when there is more), however deep the trailing blocks are.
  const toBlock = minOf(head, maxOf(unread, fromBlock + BigInt(limits.maxBlocks) - 1n));
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

/** Moves the cursor past the window, once its deposits are in their workflows' hands; never back. */
export async function advanceScanCursor(prisma: PrismaClient, chain: string, window: ScanWindow): Promise<void> {
  const nextBlock = window.toBlock + 1n;
  await prisma.$executeRaw`
    INSERT INTO chain_cursors (chain, next_block, updated_at) VALUES (${chain}, ${nextBlock}, now())
    ON CONFLICT (chain) DO UPDATE SET next_block = GREATEST(chain_cursors.next_block, EXCLUDED.next_block),
                                      updated_at = now()`;
}

const maxOf = (a: bigint, b: bigint) => (a > b ? a : b);
const minOf = (a: bigint, b: bigint) => (a < b ? a : b);

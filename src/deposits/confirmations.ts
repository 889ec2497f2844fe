// How far each deposit is on its way to being credited: its confirmations out of the chain's required count. The
// chain's head is read only for deposits still confirming (rare), once per chain, and briefly: a chain that does not
// answer in time leaves their count unknown rather than holding the balance read.
import { headBlock } from '../chain/deposit-inspection.ts';
import { chainSettings } from '../chain/settings.ts';
import type { ChainsConfig } from '../config/config.ts';
import type { Chain } from '../domain/values.ts';
import type { Deposit } from '../generated/prisma/client.ts';
import { answerWithin } from '../net/deadline.ts';

export interface DepositConfirmations {
  /** Blocks from the deposit's own to the head, inclusive, up to `required`; null when not known (or rejected). */
  confirmations: number | null;
  /** What the chain requires before crediting; null for a chain no longer enabled. */
  required: number | null;
}

/** A head read for the balance page waits this long at most. */
const headReadMs = 2_000;

async function headOrNull(config: ChainsConfig, chain: string): Promise<bigint | null> {
  const settings = chainSettings(config, chain as Chain);
  return settings ? answerWithin(headReadMs, () => headBlock(settings)) : null;
}

/** Each deposit's confirmations, by deposit id. */
export async function depositConfirmations(
  config: ChainsConfig,
  deposits: Deposit[],
): Promise<Map<string, DepositConfirmations>> {
  const confirming = deposits.filter((deposit) => deposit.status === 'pending' && deposit.blockNumber !== null);
  const chainsToRead = [...new Set(confirming.map((deposit) => deposit.chain))];
  const heads = new Map(
    await Promise.all(chainsToRead.map(async (chain) => [chain, await headOrNull(config, chain)] as const)),
  );
  return new Map(
    deposits.map((deposit) => {
      const required = chainSettings(config, deposit.chain as Chain)?.confirmations ?? null;
      return [deposit.id, { confirmations: confirmationsOf(deposit, required, heads.get(deposit.chain)), required }];
    }),
  );
}

function confirmationsOf(deposit: Deposit, required: number | null, head: bigint | null | undefined): number | null {
  if (deposit.status === 'rejected') return null;
  // Confirmed or credited: it had them all when it was counted.
  if (deposit.status !== 'pending') return required;
  if (deposit.blockNumber === null) return 0;
  if (head === null || head === undefined) return null;
  const counted = Number(head - deposit.blockNumber + 1n);
  return Math.max(0, required === null ? counted : Math.min(counted, required));
}

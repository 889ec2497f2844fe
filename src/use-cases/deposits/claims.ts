// POST /agents/deposit: an agent names a transaction; its deposit workflow decides, and the answer is told from the
// caller's side (credited to you, still confirming, or why it is not yours to credit).
import { chainSettings } from '../../chain/settings.ts';
import type { Config } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import { DepositRefusedError, DomainError, FieldError, ServiceUnavailableError } from '../../domain/errors.ts';
import type { Chain } from '../../domain/values.ts';
import { claimDepositWorkflow, type DepositFailure } from '../temporal/deposit-workflows.ts';
import type { TemporalDeps } from '../temporal/generation-workflows.ts';
import type { DepositRejection, DepositResult } from '../../../workflows/contracts/deposit.types.ts';
import { getAccountSummary } from '../../accounts/accounts.ts';
import type { AccountCreditView } from '../../deposits/view.ts';
import { admitDepositClaim } from '../../deposits/pending-claims.ts';

export interface DepositClaim {
  accountId: string;
  chain: Chain;
  txHash: string;
}

export type DepositClaimResult =
  /** What the transaction paid the caller (all its transfers to the caller's address). */
  | { credited: true; credit: AccountCreditView }
  | { credited: false; confirmations: number; required: number; balanceMicros: bigint };

const rejections: Record<DepositRejection, [DepositRefusedError['code'], string]> = {
  not_found: ['deposit_not_found', 'No such transaction was found on this chain (check the hash and the chain).'],
  reverted: ['deposit_reverted', 'The transaction reverted: it moved no funds.'],
  wrong_token: ['deposit_wrong_token', 'The transaction moved a token other than this chain’s USDC.'],
  wrong_recipient: ['deposit_wrong_recipient', 'The transaction sent no USDC to your deposit address.'],
  dropped: ['deposit_not_found', 'The transaction left the chain in a reorganisation before it was confirmed.'],
};

function fromCallersSide(claim: DepositClaim, result: DepositResult): DepositClaimResult {
  if (result.outcome === 'rejected') {
    const [code, message] = rejections[result.reason];
    throw new DepositRefusedError(code, message);
  }
  const credit = result.credits.find((paid) => paid.accountId === claim.accountId);
  if (!credit) {
    throw new DepositRefusedError('deposit_already_credited', 'This transaction was credited to another account.');
  }
  return { credited: true, credit };
}

/** A run that failed, told as it failed: an outage may pass (503), a ledger refusal will not (500, for the operator). */
function failedClaim(claim: DepositClaim, why: DepositFailure): DomainError {
  switch (why) {
    case 'chain_unreadable':
      return new ServiceUnavailableError(
        'The chain could not be read for a long while; nothing was credited. Try again.',
      );
    case 'database_unavailable':
      return new ServiceUnavailableError(
        'The deposit could not be recorded for a long while (the database was unavailable); nothing was credited. Try again.',
      );
    case 'ledger_refused':
      return new DomainError(
        'internal_error',
        `The transaction ${claim.txHash} was found on chain, but the ledger refused to record or credit it; nothing was ` +
          'credited, and claiming it again will not change that. Report the transaction hash to the operator.',
      );
  }
}

export async function claimDeposit(
  deps: { config: Pick<Config, 'chains' | 'deposits'>; temporal: TemporalDeps; prisma: PrismaClient },
  claim: DepositClaim,
): Promise<DepositClaimResult> {
  if (!chainSettings(deps.config.chains, claim.chain)) {
    throw new FieldError('chain', `deposits on ${claim.chain} are not enabled on this server`);
  }
  await admitDepositClaim(deps.prisma, claim, {
    perAccount: deps.config.deposits.pendingClaimsPerAccount,
    windowSeconds: deps.config.deposits.receiptWaitSeconds,
  });
  const progress = await claimDepositWorkflow(
    deps.temporal,
    { chain: claim.chain, txHash: claim.txHash, receiptWaitSeconds: deps.config.deposits.receiptWaitSeconds },
    deps.config.deposits.waitSeconds * 1000,
  );
  switch (progress.status) {
    case 'ended':
      return fromCallersSide(claim, progress.result);
    case 'failed':
      throw failedClaim(claim, progress.why);
    case 'running': {
      const { state } = progress;
      if ('outcome' in state) return fromCallersSide(claim, state);
      if (state.status === 'confirming' && !state.accountIds.includes(claim.accountId)) {
        throw new DepositRefusedError('deposit_wrong_recipient', rejections.wrong_recipient[1]);
      }
      const { balance } = await getAccountSummary(deps.prisma, claim.accountId);
      const seen = state.status === 'confirming' ? state : { confirmations: 0, required: 0 };
      return {
        credited: false,
        confirmations: seen.confirmations,
        required: seen.required,
        balanceMicros: balance,
      };
    }
  }
}

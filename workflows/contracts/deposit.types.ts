// The deposit workflow's contract with its callers (the api, the watcher): its input, result, state query and
// signature. Types and the query only, so the client side never imports the workflow's activities.
import { defineQuery } from '@temporalio/workflow';
import type { AccountCreditView } from '../../src/deposits/view.ts';
import type { DepositRef } from '../../src/deposits/deposits.ts';
import type { Chain } from '../../src/domain/values.ts';

export interface DepositInput extends DepositRef {
  /** How long a hash the node does not know may take to appear before it is refused as not found. */
  receiptWaitSeconds: number;
  /** A look again after a refusal that time may undo: a hash the node still does not know is refused at once. */
  recheck?: boolean;
}

export type DepositRejection = 'not_found' | 'reverted' | 'wrong_token' | 'wrong_recipient' | 'dropped';

/** Refusals a later sighting may undo (the transaction may yet be mined): the hash may be looked up again. */
export const recheckableRejections: readonly DepositRejection[] = ['not_found', 'dropped'];

export type DepositResult =
  /** One entry per agent the transaction paid (a multisend may pay several). */
  | { outcome: 'credited'; credits: AccountCreditView[] }
  | { outcome: 'rejected'; reason: DepositRejection; accountIds?: string[] };

export type DepositState =
  | { status: 'inspecting' }
  | { status: 'confirming'; accountIds: string[]; confirmations: number; required: number }
  | DepositResult;

export const depositStateQuery = defineQuery<DepositState>('depositState');

export type DepositWorkflow = (input: DepositInput) => Promise<DepositResult>;

/** One scan of a chain's next blocks (`depositScanWorkflow`, run by the chain's schedule), or null when none are new. */
export interface DepositScanInput {
  chain: Chain;
}
export type DepositScanReport = { fromBlock: string; toBlock: string; started: number } | null;
export type DepositScanWorkflow = (input: DepositScanInput) => Promise<DepositScanReport>;

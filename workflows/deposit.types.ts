// The deposit workflow's contract with its callers (the api, the watcher): its input, result, state query and
// signature. Types and the query only, so the client side never imports the workflow's activities.
import { defineQuery } from '@temporalio/workflow';
import type { CreditedDepositView } from '../src/payments/deposits/view.ts';
import type { DepositRef } from '../src/payments/deposits/deposits.ts';

export interface DepositInput extends DepositRef {
  /** How long a hash the node does not know may take to appear before it is refused as not found. */
  receiptWaitSeconds: number;
}

export type DepositRejection = 'reverted' | 'wrong_token' | 'wrong_recipient' | 'dropped';

export type DepositResult =
  | { outcome: 'credited'; accountId: string; deposit: CreditedDepositView }
  | { outcome: 'rejected'; reason: DepositRejection; accountId?: string };

export type DepositState =
  | { status: 'inspecting' }
  | { status: 'confirming'; accountId: string; confirmations: number; required: number }
  | DepositResult;

export const depositStateQuery = defineQuery<DepositState>('depositState');

export type DepositWorkflow = (input: DepositInput) => Promise<DepositResult>;

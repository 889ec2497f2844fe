// The custom search attributes operators filter by in the Web UI and `temporal workflow list --query`. Typed keys,
// shared by the starters (set at start), the workflows (status kept current) and the registration (dev server,
// docker-compose init, the boot check). Pure: the workflow bundle imports it.
import type { SearchAttributeType } from '@temporalio/common';

/** What defineSearchAttributeKey makes, written out: workflow code imports only @temporalio/workflow at run time. */
interface SearchAttributeKey<T extends SearchAttributeType = SearchAttributeType> {
  name: string;
  type: T;
}
const keyword = (name: string): SearchAttributeKey<'KEYWORD'> => ({ name, type: 'KEYWORD' });

/** queued → processing → completed | failed; `refused`: admission refused, no task was made. */
export const genStatus = keyword('GenStatus');
/** The request's type (`text-to-image`, `upscale`, …). */
export const genType = keyword('GenType');
/** The catalog model id (`fal/flux-schnell`). */
export const genModel = keyword('GenModel');
/** The provider part of the model id (`fal`, `replicate`, `openai`, `local`). */
export const genProvider = keyword('GenProvider');
export const genAccountId = keyword('GenAccountId');
/** agent | developer | wallet. */
export const genAccountKind = keyword('GenAccountKind');
/** balance (reserved from the account) | x402 (paid per request). */
export const genPaymentMethod = keyword('GenPaymentMethod');

export const depositChain = keyword('DepositChain');
/** Known once the transaction is seen paying an agent's deposit address. */
export const depositAccountId = keyword('DepositAccountId');
/** inspecting → confirming → credited | rejected; `not_found`: no such transaction was mined in time. */
export const depositStatus = keyword('DepositStatus');

export type GenStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'refused';
export type DepositStatus = 'inspecting' | 'confirming' | 'credited' | 'rejected' | 'not_found';

/** Every attribute this service sets: what a server must have registered before a workflow may start. */
export const searchAttributeKeys: SearchAttributeKey[] = [
  genStatus,
  genType,
  genModel,
  genProvider,
  genAccountId,
  genAccountKind,
  genPaymentMethod,
  depositChain,
  depositAccountId,
  depositStatus,
];

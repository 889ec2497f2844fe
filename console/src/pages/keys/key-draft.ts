// The new-key form as filled in, and the POST /keys request it makes (an empty field: not limited, or inherited).
import type { components } from '../../api/schema';

export type CreateKeyRequest = components['schemas']['CreateKeyRequest'];
export type KeyScope = components['schemas']['KeyScope'];
type Policy = NonNullable<CreateKeyRequest['policy']>;
export type BudgetWindow = NonNullable<Policy['budget']>['window'];

export interface KeyDraft {
  name: string;
  scopes: KeyScope[];
  budget: string;
  window: BudgetWindow;
  models: string[];
  types: string[];
  maxCostPerTask: string;
  /** A day (yyyy-mm-dd): the key works until that day ends, UTC. */
  expiresOn: string;
}

export const emptyKeyDraft = (scopes: KeyScope[]): KeyDraft => ({
  name: '',
  scopes,
  budget: '',
  window: 'month',
  models: [],
  types: [],
  maxCostPerTask: '',
  expiresOn: '',
});

export function createKeyRequest(draft: KeyDraft): CreateKeyRequest {
  const policy: Policy = {};
  if (draft.budget.trim()) policy.budget = { amount: Number(draft.budget), window: draft.window };
  if (draft.models.length) policy.models = draft.models;
  if (draft.types.length) policy.types = draft.types as Policy['types'];
  if (draft.maxCostPerTask.trim()) policy.max_cost_per_task = Number(draft.maxCostPerTask);
  return {
    name: draft.name.trim(),
    scopes: draft.scopes,
    ...(Object.keys(policy).length > 0 && { policy }),
    ...(draft.expiresOn && { expires_at: `${draft.expiresOn}T23:59:59.999Z` }),
  };
}

// The new-key form as filled in, and the POST /keys request it makes (an empty field: not limited, or inherited). The
// policy part is shared with the OAuth consent screen, whose grant is a key too.
import type { components } from '../../api/schema';

export type CreateKeyRequest = components['schemas']['CreateKeyRequest'];
export type KeyScope = components['schemas']['KeyScope'];
export type KeyPolicyRequest = NonNullable<CreateKeyRequest['policy']>;
export type BudgetWindow = NonNullable<KeyPolicyRequest['budget']>['window'];

export const budgetWindows: BudgetWindow[] = ['day', 'week', 'month', 'total'];

/** The policy fields as typed: amounts as the inputs' text, lists as chosen (none: any). */
export interface PolicyDraft {
  budget: string;
  window: BudgetWindow;
  models: string[];
  types: string[];
  maxCostPerTask: string;
}

export interface KeyDraft extends PolicyDraft {
  name: string;
  scopes: KeyScope[];
  /** A day (yyyy-mm-dd): the key works until that day ends, UTC. */
  expiresOn: string;
}

/** A new key starts with the caller's scopes but `keys`: managing keys is given on purpose, as the API does. */
export const emptyKeyDraft = (scopes: KeyScope[]): KeyDraft => ({
  name: '',
  scopes: scopes.filter((scope) => scope !== 'keys'),
  budget: '',
  window: 'month',
  models: [],
  types: [],
  maxCostPerTask: '',
  expiresOn: '',
});

/** The policy the draft asks for, or undefined when it limits nothing (the calling key's then applies). */
export function policyRequest(draft: PolicyDraft): KeyPolicyRequest | undefined {
  const policy: KeyPolicyRequest = {};
  if (draft.budget.trim()) policy.budget = { amount: Number(draft.budget), window: draft.window };
  if (draft.models.length) policy.models = draft.models;
  if (draft.types.length) policy.types = draft.types as KeyPolicyRequest['types'];
  if (draft.maxCostPerTask.trim()) policy.max_cost_per_task = Number(draft.maxCostPerTask);
  return Object.keys(policy).length > 0 ? policy : undefined;
}

export function createKeyRequest(draft: KeyDraft): CreateKeyRequest {
  const policy = policyRequest(draft);
  return {
    name: draft.name.trim(),
    scopes: draft.scopes,
    ...(policy && { policy }),
    ...(draft.expiresOn && { expires_at: `${draft.expiresOn}T23:59:59.999Z` }),
  };
}

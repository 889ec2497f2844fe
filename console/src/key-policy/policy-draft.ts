// A key's policy as a form fills it in (the new-key form, and the OAuth consent screen, whose grant is a key too), and
// the policy it asks the API for: an empty field limits nothing (the calling key's own policy still applies).
import type { components } from '../api/schema';

export type KeyPolicyRequest = NonNullable<components['schemas']['CreateKeyRequest']['policy']>;
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

/** The policy the draft asks for, or undefined when it limits nothing (the calling key's then applies). */
export function policyRequest(draft: PolicyDraft): KeyPolicyRequest | undefined {
  const policy: KeyPolicyRequest = {};
  if (draft.budget.trim()) policy.budget = { amount: Number(draft.budget), window: draft.window };
  if (draft.models.length) policy.models = draft.models;
  if (draft.types.length) policy.types = draft.types as KeyPolicyRequest['types'];
  if (draft.maxCostPerTask.trim()) policy.max_cost_per_task = Number(draft.maxCostPerTask);
  return Object.keys(policy).length > 0 ? policy : undefined;
}

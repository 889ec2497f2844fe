// The new-key form as filled in, and the POST /keys request it makes (an empty field: not limited, or inherited). Its
// policy part is key-policy's, shared with the OAuth consent screen.
import type { components } from '../../api/schema';
import { type PolicyDraft, policyRequest } from '../../key-policy/policy-draft';

export type CreateKeyRequest = components['schemas']['CreateKeyRequest'];
export type KeyScope = components['schemas']['KeyScope'];

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

export function createKeyRequest(draft: KeyDraft): CreateKeyRequest {
  const policy = policyRequest(draft);
  return {
    name: draft.name.trim(),
    scopes: draft.scopes,
    ...(policy && { policy }),
    ...(draft.expiresOn && { expires_at: `${draft.expiresOn}T23:59:59.999Z` }),
  };
}

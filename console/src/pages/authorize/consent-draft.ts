// The consent screen's choices as typed, and the POST /oauth/consent answer that grants with them: the budget, window
// and models of the grant's policy (key-policy's, shared with the new-key form) and how long it lasts.
import type { components } from '../../api/schema';
import { type PolicyDraft, policyRequest } from '../../key-policy/policy-draft';

export type ConsentAnswer = Omit<components['schemas']['OAuthConsentAnswer'], 'request'>;

/** Days the grant lasts; '': until revoked (or until the signed-in key expires, whose expiry it inherits). */
export const expiries = [
  { days: '', label: 'Never (until revoked)' },
  { days: '7', label: 'In 7 days' },
  { days: '30', label: 'In 30 days' },
  { days: '90', label: 'In 90 days' },
] as const;

export interface ConsentDraft extends Pick<PolicyDraft, 'budget' | 'window' | 'models'> {
  expiresInDays: string;
}

export const defaultConsentDraft: ConsentDraft = { budget: '5', window: 'day', models: [], expiresInDays: '' };

export function grantAnswer(draft: ConsentDraft, now = Date.now()): ConsentAnswer {
  const policy = policyRequest({ ...draft, types: [], maxCostPerTask: '' });
  const days = Number(draft.expiresInDays);
  return {
    approve: true,
    ...(policy && { policy }),
    ...(days > 0 && { expires_at: new Date(now + days * 86_400_000).toISOString() }),
  };
}

/** Where the answer sends the browser, as a person recognises it: the redirect URI's host (or all of it). */
export function destinationOf(redirectUri: string): string {
  try {
    return new URL(redirectUri).host || redirectUri;
  } catch {
    return redirectUri;
  }
}

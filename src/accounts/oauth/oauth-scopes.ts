// What an OAuth client may be granted: a key's scopes short of `keys` (a host never manages keys). None asked: both.
import type { KeyScope } from '../key-policy.ts';

export const oauthScopes = ['generate', 'read'] as const satisfies readonly KeyScope[];

/** The scopes asked for, or null when one is not ours. */
export function requestedScopes(asked: string[] | undefined): KeyScope[] | null {
  if (!asked || asked.length === 0) return [...oauthScopes];
  const known = new Set<string>(oauthScopes);
  return asked.every((scope) => known.has(scope)) ? ([...new Set(asked)] as KeyScope[]) : null;
}

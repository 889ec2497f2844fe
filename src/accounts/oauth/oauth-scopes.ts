// What an OAuth client may be granted: a key's scopes short of `keys` (a host never manages keys). Scopes of others
// (a host's `openid`, say) are left out, as RFC 6749 §3.3 lets a server grant fewer; none of ours asked: both.
import type { KeyScope } from '../key-policy.ts';

export const oauthScopes = ['generate', 'read'] as const satisfies readonly KeyScope[];

export function requestedScopes(asked: string[] | undefined): KeyScope[] {
  const ours = oauthScopes.filter((scope) => asked?.includes(scope));
  return ours.length > 0 ? ours : [...oauthScopes];
}

// Who signs our offers and receipts, as x402's offer-receipt extension finds it: a did:web of the gateway's own address,
// whose document at /.well-known/did.json carries the public keys (the extension's verifier fetches it from there). An
// offer and a receipt are signed with different keys under different ids: a verifier of receipts takes only `#receipts-1`.
import type { JsonWebKey } from 'node:crypto';
import type { KeyPurpose } from './signing-key.ts';

/** `did:web:<host>` of a base URL (a port is written `%3A`, as did:web says; a path adds `:segment`s). */
export function didWebOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.split('/').filter(Boolean).map(encodeURIComponent);
  return ['did:web', encodeURIComponent(url.host), ...path].join(':');
}

export const keyFragments: Record<KeyPurpose, string> = { offers: 'offers-1', receipts: 'receipts-1' };

/** The key id an offer's or a receipt's JWS header names. */
export const kidOf = (purpose: KeyPurpose, baseUrl: string) => `${didWebOf(baseUrl)}#${keyFragments[purpose]}`;

/** The DID document: each key under each DID this server is known by; receipts' is the one for assertions. */
export function didDocument(bases: string[], publicJwks: Record<KeyPurpose, JsonWebKey>) {
  const dids = [...new Set(bases.map(didWebOf))];
  const methods = dids.flatMap((did) =>
    (['receipts', 'offers'] as const).map((purpose) => ({
      id: `${did}#${keyFragments[purpose]}`,
      type: 'JsonWebKey2020',
      controller: did,
      publicKeyJwk: publicJwks[purpose],
    })),
  );
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
    id: dids[0],
    ...(dids.length > 1 && { alsoKnownAs: dids.slice(1) }),
    verificationMethod: methods,
    assertionMethod: methods.map((method) => method.id),
  };
}

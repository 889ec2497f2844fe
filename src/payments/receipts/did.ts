// Who signs our receipts, as x402's offer-receipt extension finds it: a did:web of the gateway's own address, whose
// document at /.well-known/did.json carries the public key (the extension's verifier fetches it from there).

/** `did:web:<host>` of a base URL (a port is written `%3A`, as did:web says; a path adds `:segment`s). */
export function didWebOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.split('/').filter(Boolean).map(encodeURIComponent);
  return ['did:web', encodeURIComponent(url.host), ...path].join(':');
}

export const receiptKeyFragment = 'receipts-1';

/** The key id a receipt's JWS header names. */
export const receiptKid = (baseUrl: string) => `${didWebOf(baseUrl)}#${receiptKeyFragment}`;

/** The DID document: one verification method (the receipt key) for each DID this server is known by. */
export function didDocument(bases: string[], publicJwk: object) {
  const dids = [...new Set(bases.map(didWebOf))];
  const methods = dids.map((did) => ({
    id: `${did}#${receiptKeyFragment}`,
    type: 'JsonWebKey2020',
    controller: did,
    publicKeyJwk: publicJwk,
  }));
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
    id: dids[0],
    ...(dids.length > 1 && { alsoKnownAs: dids.slice(1) }),
    verificationMethod: methods,
    assertionMethod: methods.map((method) => method.id),
  };
}

// Signed receipts in the offer-receipt format x402 defined (a compact JWS, ES256, over the JCS-canonical payload), which
// every method's receipts share: what was charged, refunded or topped up, naming the task or top-up, the amount and the
// transaction. The format's payload fields come first; `kind`, `id` and `amount` are ours (its verifiers return the
// whole signed payload). Made with jose and an RFC 8785 canonicalizer, so no method's package is needed to sign one.
import { sign } from 'node:crypto';
import canonicalize from 'canonicalize';
import { base64url } from 'jose';
import type { KeyPurpose, SigningKey, SigningKeys } from './signing-key.ts';
import { kidOf } from './did.ts';

/** A settled payment of a task, what a balance was charged for it, what was given back, or a top-up credited. */
export type ReceiptKind = 'payment' | 'charge' | 'refund' | 'top_up';

export interface ReceiptFacts {
  kind: ReceiptKind;
  /** The task (`gen_…`) or top-up (`top_…`) it is for. */
  id: string;
  resourceUrl: string;
  /** The paying wallet's address, or the account id of a balance. */
  payer: string;
  /** `eip155:<chain id>` of an on-chain transfer; `balance` for a ledger movement. */
  network: string;
  /** The transfer's hash, or the ledger entry's id; none where nothing moved (what an `upto` payment never took). */
  transaction?: string;
  /** Atomic units of USDC, which are micro-USD. */
  amount: bigint;
  issuedAt: Date;
}

/** The signed payload: the offer-receipt format's fields, then ours. */
export interface SignedReceiptPayload {
  version: 1;
  network: string;
  resourceUrl: string;
  payer: string;
  /** Seconds since the epoch. */
  issuedAt: number;
  transaction?: string;
  kind: ReceiptKind;
  id: string;
  amount: string;
}

/** A signer of compact JWSs (the shape x402's offer-receipt issuers take too): its key's id and its signature. */
export interface JWSSigner {
  kid: string;
  format: 'jws';
  algorithm: 'ES256';
  /** The base64url signature of the JWS signing input. */
  sign(bytes: Uint8Array): Promise<string>;
}

/** A receipt as the offer-receipt format carries it. */
export interface JWSSignedReceipt {
  format: 'jws';
  signature: string;
}

/** A JWS signer of `purpose`'s key, named under this base URL's did:web. */
export function jwsSigner(purpose: KeyPurpose, key: SigningKey, baseUrl: string): JWSSigner {
  return {
    kid: kidOf(purpose, baseUrl),
    format: 'jws',
    algorithm: 'ES256',
    sign: async (bytes) =>
      sign('sha256', bytes, { key: key.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url'),
  };
}

export async function signReceipt(signer: JWSSigner, facts: ReceiptFacts): Promise<JWSSignedReceipt> {
  const payload: SignedReceiptPayload = {
    version: 1,
    network: facts.network,
    resourceUrl: facts.resourceUrl,
    payer: facts.payer,
    issuedAt: Math.floor(facts.issuedAt.getTime() / 1000),
    ...(facts.transaction !== undefined && { transaction: facts.transaction }),
    kind: facts.kind,
    id: facts.id,
    amount: facts.amount.toString(),
  };
  return { format: 'jws', signature: await compactJws(payload, signer) };
}

/** The compact JWS of the canonical payload: the protected header names only the algorithm and the key. */
async function compactJws(payload: SignedReceiptPayload, signer: JWSSigner): Promise<string> {
  const encode = (text: string) => base64url.encode(new TextEncoder().encode(text));
  const signingInput = `${encode(JSON.stringify({ alg: signer.algorithm, kid: signer.kid }))}.${encode(canonicalize(payload)!)}`;
  return `${signingInput}.${await signer.sign(new TextEncoder().encode(signingInput))}`;
}

/** Signs offers or receipts under the did:web of a base URL (the request's public one). */
export type SignerFor = (baseUrl: string) => Promise<JWSSigner>;

/** The signers of this server's offers and of its receipts (each key read once per process). */
export type Signers = Record<KeyPurpose, SignerFor>;

export function signerSources(keys: SigningKeys): Signers {
  return {
    offers: async (baseUrl) => jwsSigner('offers', await keys.offers(), baseUrl),
    receipts: async (baseUrl) => jwsSigner('receipts', await keys.receipts(), baseUrl),
  };
}

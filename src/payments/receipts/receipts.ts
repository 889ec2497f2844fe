// Signed receipts (x402's offer-receipt extension, JWS over the JCS-canonical payload, ES256): what was charged,
// refunded or topped up, naming the task or top-up, the amount and the transaction. The extension's payload fields come
// first; `kind`, `id` and `amount` are ours (the extension's verifier returns the whole signed payload).
import { sign } from 'node:crypto';
import { createJWS, type JWSSignedReceipt, type JWSSigner, type ReceiptPayload } from '@x402/extensions/offer-receipt';
import type { ReceiptKey } from './signing-key.ts';
import { receiptKid } from './did.ts';

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
  /** The transfer's hash, or the ledger entry's id. */
  transaction: string;
  /** Atomic units of USDC, which are micro-USD. */
  amount: bigint;
  issuedAt: Date;
}

export type SignedReceiptPayload = ReceiptPayload & { kind: ReceiptKind; id: string; amount: string };

/** A JWS signer for the extension's createJWS, from the receipt key. */
export function receiptSigner(key: ReceiptKey, baseUrl: string): JWSSigner {
  return {
    kid: receiptKid(baseUrl),
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
    transaction: facts.transaction,
    kind: facts.kind,
    id: facts.id,
    amount: facts.amount.toString(),
  };
  return { format: 'jws', signature: await createJWS(payload, signer) };
}

/** The signer of this server's receipts and offers, for its public address (the key read once per process). */
export function receiptSignerSource(readKey: () => Promise<ReceiptKey>, baseUrl: () => string) {
  return async (): Promise<JWSSigner> => receiptSigner(await readKey(), baseUrl());
}

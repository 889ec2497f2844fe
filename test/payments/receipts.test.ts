// The receipt key's identity: did:web of the gateway's address as the offer-receipt extension resolves it (a port is
// %3A, a path adds segments), the DID document naming the key under every address the server is known by, and a
// receipt signed with it verifying with the extension's own verifier against that document's key only.
import { generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { createJWS, verifyReceiptSignatureJWS } from '@x402/extensions/offer-receipt';
import { describe, expect, it } from 'vitest';
import { didDocument, didWebOf, kidOf } from '../../src/payments/receipts/did.ts';
import { jwsSigner, signReceipt } from '../../src/payments/receipts/receipts.ts';

const keyPair = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicJwk: publicKey.export({ format: 'jwk' }) as JsonWebKey };
};

const facts = {
  kind: 'charge' as const,
  id: 'gen_4Qm8xY2pL7vN1cR5tB9wZk',
  resourceUrl: 'https://gateway.example/api/v1/generations/gen_4Qm8xY2pL7vN1cR5tB9wZk',
  payer: 'agt_0123456789abcdef',
  network: 'balance',
  transaction: 'ledger:42',
  amount: 25_000n,
  issuedAt: new Date('2026-11-29T08:00:00Z'),
};

describe('receipt signing', () => {
  it('names the key by did:web, as the extension resolves it', () => {
    expect(didWebOf('http://localhost:3000')).toBe('did:web:localhost%3A3000');
    expect(didWebOf('https://gateway.example/')).toBe('did:web:gateway.example');
    expect(didWebOf('https://example.com/gw/v1')).toBe('did:web:example.com:gw:v1');
    expect(kidOf('receipts', 'https://gateway.example')).toBe('did:web:gateway.example#receipts-1');
    expect(kidOf('offers', 'https://gateway.example')).toBe('did:web:gateway.example#offers-1');
  });

  it('publishes both keys under each address, once per distinct one', () => {
    const [offers, receipts] = [keyPair().publicJwk, keyPair().publicJwk];
    const document = didDocument(['http://localhost:3000', 'http://127.0.0.1:3000', 'http://localhost:3000'], {
      offers,
      receipts,
    });
    expect(document.id).toBe('did:web:localhost%3A3000');
    expect(document.verificationMethod.map((method) => [method.id, method.publicKeyJwk])).toEqual([
      ['did:web:localhost%3A3000#receipts-1', receipts],
      ['did:web:localhost%3A3000#offers-1', offers],
      ['did:web:127.0.0.1%3A3000#receipts-1', receipts],
      ['did:web:127.0.0.1%3A3000#offers-1', offers],
    ]);
    expect(document.assertionMethod).toHaveLength(4);
  });

  it('signs the extension payload with our fields, verifiable with the published key and no other', async () => {
    const key = keyPair();
    const receipt = await signReceipt(jwsSigner('receipts', key, 'https://gateway.example'), facts);
    expect(await verifyReceiptSignatureJWS(receipt, key.publicJwk as never)).toEqual({
      version: 1,
      network: 'balance',
      resourceUrl: facts.resourceUrl,
      payer: facts.payer,
      issuedAt: 1_795_939_200,
      transaction: 'ledger:42',
      kind: 'charge',
      id: facts.id,
      amount: '25000',
    });
    await expect(verifyReceiptSignatureJWS(receipt, keyPair().publicJwk as never)).rejects.toThrow();
  });

  it("makes the extension's own JWS: the same header and canonical payload bytes as its createJWS", async () => {
    const signer = jwsSigner('receipts', keyPair(), 'https://gateway.example');
    const ours = (await signReceipt(signer, { ...facts, resourceUrl: 'https://gateway.example/ü?b=1&a=2' })).signature;
    const payload = JSON.parse(Buffer.from(ours.split('.')[1]!, 'base64url').toString('utf8')) as object;
    const theirs = await createJWS(payload as never, signer);
    expect(ours.split('.').slice(0, 2)).toEqual(theirs.split('.').slice(0, 2));
  });
});

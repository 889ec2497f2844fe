// `/.well-known/did.json`: the DID document of did:web:<this host>, where x402's offer-receipt verifiers find the key
// that signs our offers and receipts. It names the key under the configured address and the one the request came to.
import { Router } from 'express';
import { publicBaseUrl, type ServerConfig } from '../../config/config.ts';
import { didDocument } from '../../payments/receipts/did.ts';
import type { ReceiptKey } from '../../payments/receipts/signing-key.ts';
import { documentBase } from './document-base.ts';

export function didDocumentRouter(
  server: Pick<ServerConfig, 'publicBaseUrl' | 'port'>,
  readKey: () => Promise<ReceiptKey>,
): Router {
  const router = Router();
  router.get('/.well-known/did.json', async (req, res, next) => {
    try {
      const { base, cacheControl } = documentBase(server.publicBaseUrl, req);
      const key = await readKey();
      res
        .set('Cache-Control', cacheControl)
        .type('application/did+json')
        .send(JSON.stringify(didDocument([publicBaseUrl(server), base], key.publicJwk)));
    } catch (error) {
      next(error);
    }
  });
  return router;
}

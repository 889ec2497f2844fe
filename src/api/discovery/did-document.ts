// `/.well-known/did.json`: the DID document of did:web:<this host>, where x402's offer-receipt verifiers find the keys
// that sign our offers and our receipts. It names them under the configured address and the one the request came to.
import { Router } from 'express';
import { publicBaseUrl, type ServerConfig } from '../../config/config.ts';
import { didDocument } from '../../payments/receipts/did.ts';
import type { SigningKeys } from '../../payments/receipts/signing-key.ts';
import { documentBase } from './document-base.ts';

export function didDocumentRouter(server: Pick<ServerConfig, 'publicBaseUrl' | 'port'>, keys: SigningKeys): Router {
  const router = Router();
  router.get('/.well-known/did.json', async (req, res, next) => {
    try {
      const { base, cacheControl } = documentBase(server, req);
      const [offers, receipts] = await Promise.all([keys.offers(), keys.receipts()]);
      const document = didDocument([publicBaseUrl(server), base], {
        offers: offers.publicJwk,
        receipts: receipts.publicJwk,
      });
      res.set('Cache-Control', cacheControl).type('application/did+json').send(JSON.stringify(document));
    } catch (error) {
      next(error);
    }
  });
  return router;
}

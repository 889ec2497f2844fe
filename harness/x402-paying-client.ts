// Real x402 payloads for tests: x402's own client (the `exact` EVM scheme, spend controls allowing exactly the offered
// assets) pays a tiny node:http server that answers 402 with our PAYMENT-REQUIRED header, and the server keeps the
// headers of the paid retry.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import type { LocalAccount } from 'viem';
import { paymentRequiredHeader } from '../src/payments/methods/x402/requirements.ts';
import { readPaymentHeader } from '../src/payments/methods/x402/payment-header.ts';
import { listenLocally } from './local-server.ts';

export interface Paid {
  payload: PaymentPayload;
  /** The headers of the request that carried the payment, as node:http received them. */
  headers: IncomingHttpHeaders;
}

/** Lets x402's client pay `required` with `account` and returns what it sent. */
export async function pay(required: PaymentRequired, account: LocalAccount): Promise<Paid> {
  let paidHeaders: IncomingHttpHeaders | undefined;
  const server = createServer((request, response) => {
    if (!request.headers['payment-signature'] && !request.headers['x-payment']) {
      response.writeHead(402, {
        'content-type': 'application/json',
        'PAYMENT-REQUIRED': paymentRequiredHeader(required),
      });
      response.end(JSON.stringify(required));
      return;
    }
    paidHeaders = request.headers;
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  const { url: base } = await listenLocally(server);
  try {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: account, networks: [...new Set(required.accepts.map((a) => a.network))] });
    client.setSpendControls({
      allowedAssets: required.accepts.map(({ network, asset, amount }) => ({
        network,
        asset,
        maxAmountPerPayment: amount,
      })),
    });
    const url = `${base}/paid`;
    const response = await wrapFetchWithPayment(fetch, client)(url, { method: 'POST' });
    await response.arrayBuffer();
    if (response.status !== 200 || !paidHeaders) throw new Error(`the x402 client did not pay: ${response.status}`);
    const read = readPaymentHeader(paidHeaders);
    if (!read) throw new Error('the paid request carried no payment header');
    return { payload: read.payload as PaymentPayload, headers: paidHeaders };
  } finally {
    await new Promise((closed) => server.close(closed));
  }
}

/** An @x402/fetch client paying from `account` on one network, in one asset, up to 10 USDC per payment. */
export function payingFetch(
  account: LocalAccount,
  { network, asset }: { network: `${string}:${string}`; asset: string },
  fetcher: typeof fetch = fetch,
): typeof fetch {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account, networks: [network] });
  client.setSpendControls({ allowedAssets: [{ network, asset, maxAmountPerPayment: '10000000' }] });
  return wrapFetchWithPayment(fetcher, client);
}

// Paying with x402: no account, the payment in the request's headers pays for `resourceUrl`. Its authorization names
// the task (a retry is the same payment), the facilitator verifies it here, and it settles once the task delivered.
import type { IncomingHttpHeaders } from 'node:http';
import { x402Offered } from '../../../chain/settings.ts';
import type { Config } from '../../../config/config.ts';
import { PaymentReusedError, ServiceUnavailableError } from '../../../domain/errors.ts';
import { findTaskForAccount } from '../../../generations/tasks.ts';
import type { PaymentMethod } from '../payment-method.ts';
import {
  authorizePayment,
  offeredPayment,
  paidTask,
  sameAuthorization,
  verifyAtOfferedAmount,
  type X402Deps,
} from './admission.ts';
import { x402BannerLines } from './banner.ts';
import { x402HeldPayment } from './held-payment.ts';
import { admitPaidTask } from './paid-tasks.ts';
import { x402McpPaymentHeaders, x402McpReceiptMeta } from './mcp-transport.ts';
import { paymentResponseHeaders } from './requirements.ts';
import { type SettlementDeps, settleTaskPayment } from './settlement.ts';

/** No account: the x402 payment in the request's headers pays for `resourceUrl`, and names a retry itself. */
export interface X402Payer {
  kind: 'x402';
  headers: IncomingHttpHeaders;
  resourceUrl: string;
}

/** What admitting an x402 payment needs; the facilitator only where payments are taken (not genctl's replays). */
export interface X402MethodDeps {
  config: X402Deps['config'];
  facilitator?: X402Deps['facilitator'];
  receiptSigner?: X402Deps['receiptSigner'];
}

function verifierOf(deps: X402MethodDeps): X402Deps {
  if (!deps.facilitator) throw new Error('x402 admission needs a payment facilitator');
  return { config: deps.config, facilitator: deps.facilitator, receiptSigner: deps.receiptSigner };
}

const unavailableMessage =
  'The generation could not be confirmed in time. Retry with the same payment: it names the same task, paid once.';

export const x402Method = {
  kind: 'x402',
  admit: (prisma, { payment, ...input }) => {
    if (!payment) throw new Error(`task ${input.taskId} is admitted as paid with x402 without its payment`);
    return admitPaidTask(prisma, { ...input, payment });
  },
  admission: (deps, payer) => {
    const config: Pick<Config, 'x402' | 'chains'> = deps.config;
    const offered = offeredPayment(config, payer.headers);
    const identity = offered.state === 'offered' ? offered.identity : null;
    // The task this payment names, when it names a payer (`null`: no payment yet).
    const paid = identity && paidTask(config.x402.taskIdSecret, identity);
    const { resourceUrl } = payer;
    return {
      accountKind: 'wallet',
      uploadsOwner: null,
      handsAccess: true,
      // Only the same signed authorization finds the task: nobody else claims a payer's task by its nonce.
      earlierTask: async (prisma) => {
        if (!paid || offered.state !== 'offered') return null;
        const task = await findTaskForAccount(prisma, paid.taskId, paid.accountId);
        return task?.payment && sameAuthorization(task.payment.payload as object, offered.payload) ? task : null;
      },
      checkBeforeMeasuring: (declared, leastMicros) =>
        verifyAtOfferedAmount(verifierOf(deps), declared, offered, { resourceUrl, leastMicros }),
      authorize: async (priced, admittedEarlier) => {
        const options = { resourceUrl, verified: admittedEarlier };
        const { identity, authorization } = await authorizePayment(verifierOf(deps), priced, offered, options);
        return { ...paidTask(config.x402.taskIdSecret, identity), idempotencyKey: null, payment: authorization };
      },
      reusedError: () => new PaymentReusedError(),
      unavailableError: () => new ServiceUnavailableError(unavailableMessage),
    };
  },
  keyless: {
    offered: x402Offered,
    payer: (headers, resourceUrl) => ({ kind: 'x402', headers, resourceUrl }),
  },
  paid: (paidBy) => paidBy.payment !== undefined,
  describe: (paidBy) => `paid with x402 by ${paidBy.payment?.payer}`,
  bannerLines: x402BannerLines,
  held: x402HeldPayment,
  settle: settleTaskPayment,
  receiptHeaders: ({ method, status, network, payer, transaction }) =>
    method === 'x402' && status === 'settled' && transaction
      ? paymentResponseHeaders({ network, payer, transaction })
      : undefined,
  mcpPaymentHeaders: x402McpPaymentHeaders,
  mcpReceiptMeta: x402McpReceiptMeta,
} satisfies PaymentMethod<X402Payer, X402MethodDeps, SettlementDeps>;

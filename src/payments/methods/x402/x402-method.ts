// Paying with x402: no account, the payment in the request's headers pays for `resourceUrl`. The client's payment id,
// else its authorization, names the task (a retry is the same payment, or another under the same id), the
// facilitator verifies it here, and it settles once the task delivered: the payment it was admitted with, only.
import type { IncomingHttpHeaders } from 'node:http';
import { x402Offered } from '../../../chain/settings.ts';
import type { Config } from '../../../config/config.ts';
import type { PrismaClient } from '../../../db/prisma.ts';
import { PaymentReusedError, ServiceUnavailableError } from '../../../domain/errors.ts';
import type { PaymentMethod } from '../payment-method.ts';
import {
  authorizePayment,
  type OfferedPayment,
  offeredPayment,
  paidTask,
  sameAuthorization,
  verifyAtOfferedAmount,
} from './admission.ts';
import { x402BannerLines } from './banner.ts';
import type { X402Scheme } from './facilitator.ts';
import { x402HeldPayment } from './held-payment.ts';
import { admitPaidTask, findPaidTask, storedAuthorization } from './paid-tasks.ts';
import { paymentIdOf } from './payment-extensions.ts';
import { x402McpPaymentHeaders, x402McpReceiptMeta } from './mcp-transport.ts';
import { paymentHeaderNames } from './payment-header.ts';
import { x402ReceiptFacts, x402ReceiptHeaders } from './task-receipts.ts';
import { type SettlementDeps, settleTaskPayment } from './settlement.ts';
import { x402TopUps } from './top-up-method.ts';
import { x402WalletSignIn } from './wallet-sign-in.ts';
import { verifierOf, type X402MethodDeps } from './x402-deps.ts';

export type { X402MethodDeps } from './x402-deps.ts';

/** No account: the x402 payment in the request's headers pays for `resourceUrl`, and names a retry itself. */
export interface X402Payer {
  kind: 'x402';
  headers: IncomingHttpHeaders;
  resourceUrl: string;
}

const unavailableMessage =
  'The generation could not be confirmed in time. Retry with the same payment: it names the same task, paid once.';

type EarlierPaidTask = NonNullable<Awaited<ReturnType<typeof findPaidTask>>>;

/**
 * The task a payment admitted before: by the client's payment id first (any payment of the payer under that id), then
 * by its authorization, only with the same signature: nobody else claims a payer's task by its nonce.
 */
async function earlierPaidTask(prisma: PrismaClient, offered: OfferedPayment): Promise<EarlierPaidTask | null> {
  if (offered.state !== 'offered' || !offered.identity) return null;
  const { payer, network, asset, nonce } = offered.identity;
  const paymentId = paymentIdOf(offered.payload);
  const named = paymentId ? await findPaidTask(prisma, { payer_paymentId: { payer, paymentId } }) : null;
  if (named) return named;
  const authorized = await findPaidTask(prisma, { network_asset_payer_nonce: { network, asset, payer, nonce } });
  if (authorized) return sameAuthorization(authorized.payment.payload as object, offered.payload) ? authorized : null;
  // An authorization that topped a balance up pays for nothing else (checked again under its lock at admission).
  const topUp = await prisma.x402TopUp.findUnique({
    where: { network_asset_payer_nonce: { network, asset, payer, nonce } },
  });
  if (topUp) throw new PaymentReusedError();
  return null;
}

/** Another payment than the one `task` was admitted with (signed anew under the same payment id). */
const resigned = (task: EarlierPaidTask, offered: OfferedPayment) =>
  offered.state === 'offered' && !sameAuthorization(task.payment.payload as object, offered.payload);

const x402Schemes: readonly string[] = ['exact', 'upto'] satisfies X402Scheme[];

export const x402Method = {
  kind: 'x402',
  admit: (prisma, { payment, ...input }) => {
    if (!payment) throw new Error(`task ${input.taskId} is admitted as paid with x402 without its payment`);
    return admitPaidTask(prisma, { ...input, payment });
  },
  admission: (deps, payer) => {
    const config: Pick<Config, 'x402' | 'chains'> = deps.config;
    const offered = offeredPayment(config, payer.headers);
    const { resourceUrl } = payer;
    // What earlierTask found: a retry is admitted as that task, with the payment it was admitted with.
    let earlier: EarlierPaidTask | null = null;
    return {
      accountKind: 'wallet',
      uploadsOwner: null,
      handsAccess: true,
      earlierTask: async (prisma) => (earlier = await earlierPaidTask(prisma, offered)),
      checkBeforeMeasuring: (declared, leastMicros) =>
        verifyAtOfferedAmount(verifierOf(deps), declared, offered, { resourceUrl, leastMicros }),
      authorize: async (priced, admittedEarlier) => {
        // A payment signed anew under the task's payment id is verified (its payer signed it), though never moved.
        const verified = admittedEarlier && !(earlier && resigned(earlier, offered));
        const options = { resourceUrl, verified };
        const { identity, authorization } = await authorizePayment(verifierOf(deps), priced, offered, options);
        if (earlier) {
          const payment = storedAuthorization(earlier.payment, config.x402.maxTasksPerPayer);
          return { taskId: earlier.id, accountId: earlier.accountId, idempotencyKey: null, payment };
        }
        const task = paidTask(config.x402.taskIdSecret, identity, authorization.paymentId);
        return { ...task, idempotencyKey: null, payment: authorization };
      },
      reusedError: () => new PaymentReusedError(),
      unavailableError: () => new ServiceUnavailableError(unavailableMessage),
    };
  },
  // The payment rides in headers of its own (v2 PAYMENT-SIGNATURE, v1 X-PAYMENT); without one, its 402 offers it.
  credential: (headers) =>
    paymentHeaderNames.some((name) => headers[name.toLowerCase()] !== undefined) ? 'own-headers' : undefined,
  keyless: {
    offered: x402Offered,
    payer: (headers, resourceUrl) => ({ kind: 'x402', headers, resourceUrl }),
  },
  // Its schemes' authorizations (another method's held payment names a scheme of its own).
  paid: (paidBy) => paidBy.payment !== undefined && x402Schemes.includes(paidBy.payment.scheme),
  describe: (paidBy) => `paid with x402 by ${paidBy.payment?.payer}`,
  bannerLines: x402BannerLines,
  held: x402HeldPayment,
  settle: settleTaskPayment,
  receiptFacts: x402ReceiptFacts,
  receiptHeaders: x402ReceiptHeaders,
  mcpPaymentHeaders: x402McpPaymentHeaders,
  mcpReceiptMeta: x402McpReceiptMeta,
  topUps: x402TopUps,
  signIn: x402WalletSignIn,
} satisfies PaymentMethod<X402Payer, X402MethodDeps, SettlementDeps>;

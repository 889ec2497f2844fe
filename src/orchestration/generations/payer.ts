// Who pays for an admission, as a parameter of the one pipeline (admit.ts): an account's balance, whose
// Idempotency-Key names a retry, or an x402 payment, whose authorization names it and which x402 verifies
// (src/payments/x402/admission.ts). Everything else about admitting a task is the same for both.
import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import { IdempotencyKeyReusedError, PaymentReusedError, ServiceUnavailableError } from '../../domain/errors.ts';
import type { AccountKind, Task, X402Payment } from '../../generated/prisma/client.ts';
import { requestHash } from '../../generations/request.ts';
import { findTaskByIdempotencyKey, findTaskForAccount, storedRequest } from '../../generations/tasks.ts';
import {
  authorizePayment,
  type OfferedPayment,
  offeredPayment,
  paidTask,
  sameAuthorization,
  verifyAtOfferedAmount,
  type X402Deps,
} from '../../payments/x402/admission.ts';
import { type AdmissibleRequest, leastMeasuredPrice, measuredRequest } from './admissible.ts';
import { balanceTaskId, type TaskClaim } from './workflow-input.ts';

/** An account with a key: its balance is reserved, and its Idempotency-Key names a retry. */
export interface BalancePayer {
  kind: 'balance';
  account: { id: string; kind: AccountKind };
  idempotencyKey: string | null;
}

/** No account: the x402 payment in the request's headers pays for `resourceUrl`, and names a retry itself. */
export interface X402Payer {
  kind: 'x402';
  headers: IncomingHttpHeaders;
  resourceUrl: string;
}

export type Payer = BalancePayer | X402Payer;

/** How a request names its task, so that a retry finds the one admitted first (x402 `paid` null: no payment yet). */
export type Claim =
  | { payer: BalancePayer; taskId: string; accountId: string }
  | { payer: X402Payer; offered: OfferedPayment; paid: { taskId: string; accountId: string } | null };

export function claimOf(config: Pick<Config, 'x402' | 'chains'>, payer: Payer): Claim {
  if (payer.kind === 'balance')
    return { payer, taskId: balanceTaskId(payer.account.id, payer.idempotencyKey), accountId: payer.account.id };
  const offered = offeredPayment(config, payer.headers);
  const identity = offered.state === 'offered' ? offered.identity : null;
  return { payer, offered, paid: identity && paidTask(config.x402.taskIdSecret, identity) };
}

/** The account a task of this payer belongs to, as the task's search attributes and a read name it. */
export const accountKindOf = (payer: Payer): AccountKind => (payer.kind === 'balance' ? payer.account.kind : 'wallet');

/** Uploads belong to accounts with a key: a payment names none of them. */
export const uploadsOwnerOf = (payer: Payer) => (payer.kind === 'balance' ? payer.account.id : null);

export type TaskRow = Task & { payment?: X402Payment | null };

/** The task admitted earlier under this claim (x402: by the same signed authorization); another body is refused. */
export async function earlierTask(prisma: PrismaClient, claim: Claim, hash: string): Promise<TaskRow | null> {
  let task: TaskRow | null = null;
  if ('accountId' in claim) {
    const key = claim.payer.idempotencyKey;
    if (key) task = await findTaskByIdempotencyKey(prisma, claim.accountId, key);
  } else if (claim.paid && claim.offered.state === 'offered') {
    const paid = await findTaskForAccount(prisma, claim.paid.taskId, claim.paid.accountId);
    if (paid?.payment && sameAuthorization(paid.payment.payload as object, claim.offered.payload)) task = paid;
  }
  if (task && requestHash(storedRequest(task)) !== hash) throw reusedError(claim.payer);
  return task;
}

/**
 * The request priced, and who pays that price. A balance pays the price of the inputs as measured. An x402 request
 * downloads nothing for a payment nobody can make good: a model x402 cannot pay is refused first, and where the price
 * follows the inputs' length, the payment must offer at least the shortest input's price and is verified at the
 * amount it offers before they are measured.
 */
export async function pricedAndAuthorized(
  deps: Parameters<typeof authorized>[0] & Parameters<typeof measuredRequest>[0],
  claim: Claim,
  declared: AdmissibleRequest,
) {
  if (!('accountId' in claim) && declared.model.measured_inputs) {
    if (!deps.facilitator) throw new Error('x402 admission needs a payment facilitator');
    const x402 = { config: deps.config, facilitator: deps.facilitator };
    const options = { resourceUrl: claim.payer.resourceUrl, leastMicros: leastMeasuredPrice(declared) };
    await verifyAtOfferedAmount(x402, declared, claim.offered, options);
  }
  const priced = await measuredRequest(deps, declared);
  return { priced, paidBy: await authorized(deps, claim, priced, false) };
}

/**
 * Who pays the priced request, and with what: the balance as it stands (admission reserves it), or the payment
 * verified now. `admittedEarlier`: its task was admitted with this payment, which has not moved since.
 */
export async function authorized(
  deps: { config: Pick<Config, 'inputs' | 'providers' | 'x402' | 'chains'>; facilitator?: X402Deps['facilitator'] },
  claim: Claim,
  priced: AdmissibleRequest,
  admittedEarlier: boolean,
): Promise<Pick<TaskClaim, 'taskId' | 'accountId' | 'idempotencyKey' | 'payment'>> {
  if ('accountId' in claim)
    return { taskId: claim.taskId, accountId: claim.accountId, idempotencyKey: claim.payer.idempotencyKey };
  if (!deps.facilitator) throw new Error('x402 admission needs a payment facilitator');
  const x402 = { config: deps.config, facilitator: deps.facilitator };
  const options = { resourceUrl: claim.payer.resourceUrl, verified: admittedEarlier };
  const { identity, authorization } = await authorizePayment(x402, priced, claim.offered, options);
  return { ...paidTask(deps.config.x402.taskIdSecret, identity), idempotencyKey: null, payment: authorization };
}

/** The same claim for another request: one Idempotency-Key, or one authorization, names one task. */
export const reusedError = (payer: Pick<Payer, 'kind'>) =>
  payer.kind === 'x402' ? new PaymentReusedError() : new IdempotencyKeyReusedError();

/** Nothing was admitted and nothing charged; the retry that names the same task is the payer's own. */
export const unavailableError = (payer: Pick<Payer, 'kind'>) =>
  new ServiceUnavailableError(
    payer.kind === 'x402'
      ? 'The generation could not be admitted; nothing was charged. Retry with the same payment: it names the same task.'
      : 'The generation could not be admitted; nothing was charged. Retry the request.',
  );

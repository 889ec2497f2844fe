// Paying for one generation with x402 instead of an account: the price is admission's own, and the requirements
// name one `exact` USDC payment per enabled chain, to X402_PAY_TO. A verified payment admits the task under an id
// derived from the authorization, so a retried payment finds its task; the money moves only when the task delivers.
import type { IncomingHttpHeaders } from 'node:http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { enabledChains } from '../../chain/settings.ts';
import { FieldError, PaymentRequiredError, PaymentReusedError, ServiceUnavailableError } from '../../domain/errors.ts';
import type { GenerationRequest, InputLayoutRequest } from '../../domain/generation-request.ts';
import type { X402Payment } from '../../generated/prisma/client.ts';
import { formatUsd } from '../../domain/money.ts';
import { admitGeneration } from '../generations/workflow-client.ts';
import type { PaymentFacilitator } from '../../payments/x402/facilitator.ts';
import {
  matchRequirement,
  PaymentHeaderError,
  type PaymentIdentity,
  paymentIdentity,
  readPaymentHeader,
} from '../../payments/x402/payment-header.ts';
import { paymentRequiredHeader, paymentRequirementsFor } from '../../payments/x402/requirements.ts';
import {
  type AdmissibleRequest,
  admissibleRequest,
  admissionRefusal,
  fallbackProvidersOf,
  timeoutsOf,
  type GenerationServiceDeps,
  measuredRequest,
  type QueuedGeneration,
  unconfirmedMessage,
} from '../generations/generations.ts';
import { secretDerivedId } from '../../domain/ids.ts';
import { walletAccountId } from '../../generations/paid-tasks.ts';
import { storedRequest } from '../../generations/tasks.ts';
import { inputUrls, requestHash } from '../../generations/request.ts';
import { checkUploadInputs } from '../../uploads/uploads.ts';
import { webhookSecretOf } from '../../webhooks/secrets.ts';
import type { GenerationInput } from '../../../workflows/generation.types.ts';

/**
 * How long an authorization must stay valid beyond the task's run (the model's timeout, and the wait for a provider
 * slot before it): collecting the outputs (up to ten minutes), then settling. Offered as `maxTimeoutSeconds`; at
 * admission at least the collection and a minute.
 */
const collectionSeconds = 600;
const settlementSeconds = 300;
const minimumSettlementSeconds = 60;

/** The longest a task's run may last: waiting for a provider slot, then the model's timeout. */
const runSeconds = (config: GenerationServiceDeps['config'], model: { timeout_seconds: number }) =>
  config.providers.queueTimeoutSeconds + model.timeout_seconds;

export interface UnpaidGeneration {
  body: GenerationRequest | InputLayoutRequest;
  /** The URL the payment is for (the x402 `resource`). */
  resourceUrl: string;
  /** The request's headers: a payment comes in PAYMENT-SIGNATURE (v2) or X-PAYMENT. */
  headers: IncomingHttpHeaders;
}

/**
 * Where `upto` can be offered, when configured: the facilitator's own answer. A facilitator that cannot say (an
 * external one unreachable) leaves the `exact` offers, which need nothing of it before settlement.
 */
async function uptoOffers(deps: { config: GenerationServiceDeps['config']; facilitator: () => PaymentFacilitator }) {
  if (!deps.config.x402.schemes.includes('upto')) return undefined;
  return deps
    .facilitator()
    .uptoFacilitators()
    .catch(() => undefined);
}

/** A task paid with x402: what its payer needs to follow it without an account. */
export interface PaidGeneration extends QueuedGeneration {
  /** Bearer token that reads this task, and nothing else. */
  accessToken: string;
  /** Signs the task's webhooks, when the request named a webhook_url. */
  webhookSecret: string | null;
}

/**
 * One authorization names one task, whoever sends it and however often. Keyed with a server secret: the payer, nonce
 * and network are public on chain once settled, and the id names the task's output files.
 */
const paidTaskId = (secret: string, identity: PaymentIdentity) =>
  secretDerivedId('gen', secret, ['x402', identity.network, identity.asset, identity.payer, identity.nonce].join('\n'));

const signatureOf = (payload: PaymentPayload) => (payload.payload as { signature?: unknown }).signature;

/**
 * The task this very payment admitted earlier (a client's retry), or null. Only the same signed authorization finds
 * it (the signature is compared, so nobody else can claim a payer's task by its nonce); another body is refused.
 */
async function earlierPaidTask(deps: GenerationServiceDeps, taskId: string, payload: PaymentPayload, hash: string) {
  const task = await deps.prisma.task.findUnique({ where: { id: taskId }, include: { payment: true } });
  if (!task?.payment) return null;
  const stored = task.payment.payload as unknown as PaymentPayload;
  if (signatureOf(stored) !== signatureOf(payload)) return null;
  if (requestHash(storedRequest(task)) !== hash) throw new PaymentReusedError();
  return { task, payment: task.payment };
}

async function paidGeneration(
  deps: GenerationServiceDeps,
  task: { id: string; type: string; model: string; costReserved: bigint; createdAt: Date; webhookUrl: string | null },
  payment: X402Payment,
): Promise<PaidGeneration> {
  return {
    id: task.id,
    type: task.type,
    model: task.model,
    costMicros: task.costReserved,
    createdAt: task.createdAt.toISOString(),
    accessToken: payment.accessToken,
    webhookSecret: task.webhookUrl ? await webhookSecretOf(deps.prisma, payment.accountId) : null,
  };
}

/** The workflow input of a verified payment: one authorization always gives the same task and workflow. */
export function paidGenerationInput(
  config: GenerationServiceDeps['config'],
  { request, model, costMicros, hash, inputSeconds }: AdmissibleRequest,
  paid: { identity: PaymentIdentity; requirement: PaymentRequirements; payload: PaymentPayload },
): GenerationInput {
  const { identity, requirement } = paid;
  return {
    taskId: paidTaskId(config.x402.taskIdSecret, identity),
    accountId: walletAccountId(identity.payer),
    request,
    costMicros: costMicros.toString(),
    idempotencyKey: null,
    modelId: model.id,
    requestHash: hash,
    ...timeoutsOf(config, model),
    ...fallbackProvidersOf(model),
    ...(inputSeconds !== undefined ? { inputSeconds } : {}),
    payment: {
      scheme: requirement.scheme,
      network: requirement.network,
      asset: identity.asset,
      payer: identity.payer,
      payTo: requirement.payTo.toLowerCase(),
      nonce: identity.nonce,
      amount: requirement.amount,
      validBefore: identity.validBefore.toString(),
      payload: paid.payload,
      requirement,
      maxTasksInFlight: config.x402.maxTasksPerPayer,
    },
  };
}

/**
 * Answers a call without an API key: what to pay (402), why a payment was refused (402), or the task a valid
 * payment admitted (nothing moves on chain until the task has delivered).
 */
export async function payForGeneration(
  deps: GenerationServiceDeps & { facilitator: () => PaymentFacilitator },
  input: UnpaidGeneration,
): Promise<PaidGeneration> {
  // The price asked for is the measured inputs' (a model priced on their length): the payment must cover them.
  const declared = admissibleRequest(deps, input.body);
  // Uploads belong to accounts with a key: a payment names none of them.
  if (deps.storage) await checkUploadInputs({ ...deps, storage: deps.storage }, null, inputUrls(declared.request));
  const admissible = await measuredRequest(deps, declared);
  const { model, costMicros, hash } = admissible;
  const chains = enabledChains(deps.config.chains);
  if (!model.supports_x402 || chains.length === 0) {
    throw new FieldError('model', `${model.id} cannot be paid with x402 on this server; send an API key`);
  }
  const required = paymentRequirementsFor({
    chains,
    payTo: deps.config.x402.payTo,
    amountMicros: costMicros,
    maxTimeoutSeconds: runSeconds(deps.config, model) + collectionSeconds + settlementSeconds,
    resource: { url: input.resourceUrl, description: `${model.name} (${model.id})`, mimeType: 'application/json' },
    uptoFacilitators: await uptoOffers(deps),
  });
  const refuse = (message: string, reason?: string) => {
    const answer = reason ? { ...required, error: reason } : required;
    return new PaymentRequiredError(message, costMicros, answer, paymentRequiredHeader(answer));
  };

  let paid;
  try {
    paid = readPaymentHeader(input.headers);
  } catch (error) {
    if (!(error instanceof PaymentHeaderError)) throw error;
    throw refuse(`The ${error.headerName} header could not be read (${error.code}); pay again.`, error.code);
  }
  if (!paid) {
    throw refuse(
      `This generation costs $${formatUsd(costMicros)}: pay it with x402 (the requirements are in this answer and ` +
        'its PAYMENT-REQUIRED header), or send an API key.',
    );
  }
  const identity = paymentIdentity(paid.payload);
  const taskId = identity && paidTaskId(deps.config.x402.taskIdSecret, identity);
  const earlier = taskId ? await earlierPaidTask(deps, taskId, paid.payload, hash) : null;
  // As with an Idempotency-Key: a task still queued has its admission sent again, in case its workflow never got it.
  if (earlier && earlier.task.status !== 'queued') return paidGeneration(deps, earlier.task, earlier.payment);

  const requirement = matchRequirement(required.accepts, paid.payload);
  if (!requirement || !identity || !taskId) {
    throw refuse(
      'The payment does not pay these requirements (its scheme, network, amount, asset or recipient differ); pay again.',
      'payment_requirements_mismatch',
    );
  }
  // A queued task's payment was verified when it was admitted; it has not moved since.
  const verdict = earlier ? { isValid: true } : await deps.facilitator().verify(paid.payload, requirement);
  if (!verdict.isValid) {
    const reason = verdict.invalidReason ?? 'invalid_payment';
    throw refuse(`The payment was refused: ${reason}. Nothing was charged.`, reason);
  }
  // A task must be able to settle after it ran: an authorization that expires sooner would make it work for free.
  const neededSeconds = runSeconds(deps.config, model) + collectionSeconds + minimumSettlementSeconds;
  const validSeconds = Number(identity.validBefore) - Math.floor(Date.now() / 1000);
  if (!earlier && validSeconds < neededSeconds) {
    throw refuse(
      `The authorization is valid for ${validSeconds} more seconds; this model needs ${neededSeconds} to run and settle ` +
        `(sign it for maxTimeoutSeconds). Nothing was charged.`,
      'authorization_window_too_short',
    );
  }

  const admission = await admitGeneration(
    deps.temporal,
    paidGenerationInput(deps.config, admissible, { identity, requirement, payload: paid.payload }),
    { accountKind: 'wallet' },
  );
  if (admission.outcome === 'conflict') throw new PaymentReusedError();
  if (admission.outcome === 'admitted' || admission.outcome === 'ended') {
    const task = await deps.prisma.task.findUnique({ where: { id: taskId }, include: { payment: true } });
    if (task && requestHash(storedRequest(task)) !== hash) throw new PaymentReusedError();
    if (task?.payment) return paidGeneration(deps, task, task.payment);
  }
  if (earlier) throw new ServiceUnavailableError(unconfirmedMessage);
  if (admission.outcome === 'unavailable' || admission.outcome === 'admitted')
    throw new ServiceUnavailableError(
      'The generation could not be admitted; nothing was charged. Retry with the same payment: it names the same task.',
    );
  throw admissionRefusal(admission, costMicros);
}

// POST /agents/topup and /account/topup (and a paid registration), by the method that offers top-ups: the payment is verified and kept, then its workflow settles it and credits
// the balance; the answer waits a bounded time for that. A retry with the same payment joins the same workflow.
import type { PrismaClient } from '../../db/prisma.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { TopUpRow } from '../../payments/methods/payment-method.ts';
import { onboardAgent, type OnboardedAgent } from '../../accounts/agents.ts';
import type { AgentRegistration } from '../../accounts/registration.ts';
import type { PaymentMethodDeps, PaymentMethods, PaymentServices } from '../../payments/methods/registered.ts';
import type { TopUpRequest, TopUps } from '../../payments/methods/payment-method.ts';
import type { Signers } from '../../payments/receipts/receipts.ts';
import type { TopUpResult } from '../../../workflows/contracts/top-up.types.ts';
import type { TemporalDeps } from '../temporal/generation-workflows.ts';
import { DomainError } from '../../domain/errors.ts';
import { resultWithin } from '../temporal/start-or-join.ts';
import { startTopUpWorkflow } from '../temporal/top-up-workflows.ts';

export interface TopUpDeps {
  prisma: PrismaClient;
  config: PaymentMethodDeps['config'];
  temporal: TemporalDeps;
  facilitator: PaymentServices['facilitator'];
  signers: Pick<Signers, 'offers'>;
  /** The ways to pay: the one that offers top-ups takes them. */
  payments: PaymentMethods;
}

/** The top-ups this server takes (the route checks they are offered before asking). */
export function topUpsOf(payments: PaymentMethods): TopUps<unknown, unknown> {
  const topUps = payments.topUps();
  if (!topUps) throw new Error('no payment method offers top-ups');
  return topUps;
}

const authorizeTopUp = (deps: TopUpDeps, request: TopUpRequest) => topUpsOf(deps.payments).authorize(deps, request);

/** Settling on a local chain takes a second or two; a slow chain's top-up is answered `settling` and finishes. */
const settleWaitMs = 30_000;

async function settled(temporal: TemporalDeps, topUp: TopUpRow): Promise<TopUpResult | null> {
  const workflowId = await startTopUpWorkflow(temporal, topUp, 'ALLOW_DUPLICATE_FAILED_ONLY');
  // Past the wait the workflow goes on: a retry of the payment joins it.
  const ended = await resultWithin<TopUpResult>(temporal.client, workflowId, settleWaitMs);
  return ended?.result ?? null;
}

/** The top-up the request's payment makes, settled and credited (or still settling); a 402 without a payment. */
export async function topUpBalance(deps: TopUpDeps, request: TopUpRequest): Promise<TopUpRow> {
  return settledTopUp(deps, await authorizeTopUp(deps, request));
}

/**
 * A registration paid with a top-up: once the payment is verified the agent is registered, tied to the paying wallet (it
 * can sign in to recover a key), and the payment tops its balance up. The same payment again is a 409.
 */
export async function registerPaidAgent(
  deps: TopUpDeps & Pick<Parameters<typeof onboardAgent>[0], 'config'>,
  registration: AgentRegistration,
  payment: Omit<TopUpRequest, 'accountId'>,
): Promise<{ agent: OnboardedAgent; topUp: TopUpRow }> {
  let agent: OnboardedAgent | undefined;
  const register = async (tx: Prisma.TransactionClient, payer: string) => {
    agent = await onboardAgent(deps, { ...registration, walletAddress: payer }, tx);
    return agent.agentId;
  };
  const authorized = await authorizeTopUp(deps, { ...payment, accountId: register });
  const topUp = await settledTopUp(deps, authorized);
  // Only the agent its top-up names was kept: one made in a transaction that then rolled back is no agent.
  const made = agent as OnboardedAgent | undefined;
  if (made && made.agentId === topUp.accountId) return { agent: made, topUp };
  // The same payment again: its agent was registered (and, settled now, credited) by the first request. Whoever
  // replays it learns nothing of that agent; the paying wallet signs in to reach it.
  throw new DomainError(
    'conflict',
    'This payment registered an agent already: sign in with the paying wallet (POST /api/v1/agents/sign-in) for a ' +
      'new key of it.',
  );
}

async function settledTopUp(deps: TopUpDeps, { topUp, refuse }: Awaited<ReturnType<TopUps['authorize']>>) {
  if (topUp.status === 'settled') return topUp;
  const result =
    topUp.status === 'failed'
      ? { outcome: 'failed' as const, reason: topUp.error ?? 'failed' }
      : await settled(deps.temporal, topUp);
  if (result?.outcome === 'failed') {
    throw refuse(
      `The payment could not be settled (${result.reason}); nothing was credited. Pay again.`,
      result.reason,
    );
  }
  return topUpsOf(deps.payments).find(deps.prisma, topUp.id);
}

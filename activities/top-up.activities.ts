// The top-up workflow's one step: settle the payment on chain and credit the balance (src/payments/methods/x402).
// A payment that will never move is an outcome, not a failure; anything else is retried by the workflow's policy.
import { Context } from '@temporalio/activity';
import { PaymentNotSettledError, type PaymentSettlementDeps } from '../src/payments/methods/registered.ts';
import { settleTopUp } from '../src/payments/methods/x402/top-up-settlement.ts';
import type { TopUpInput, TopUpResult } from '../workflows/contracts/top-up.types.ts';

export type TopUpActivityDeps = PaymentSettlementDeps;

const heartbeatEveryMs = 3_000;

export function createTopUpActivities(deps: TopUpActivityDeps) {
  return {
    async settleTopUp({ topUpId }: TopUpInput): Promise<TopUpResult> {
      // Heartbeats while a transaction is awaited: a worker that dies mid-settlement is noticed in seconds.
      const context = Context.current();
      const beating = setInterval(() => context.heartbeat(), heartbeatEveryMs);
      try {
        const settled = await settleTopUp(deps, topUpId);
        return { outcome: 'settled', transaction: settled.transaction ?? '' };
      } catch (error) {
        if (error instanceof PaymentNotSettledError) return { outcome: 'failed', reason: error.reason };
        throw error;
      } finally {
        clearInterval(beating);
      }
    },
  };
}

export type TopUpActivities = ReturnType<typeof createTopUpActivities>;

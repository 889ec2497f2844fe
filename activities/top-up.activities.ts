// The top-up workflow's one step: settle the payment and credit the balance, by the method that offers top-ups.
// A payment that will never move is an outcome, not a failure; anything else is retried by the workflow's policy.
import { Context } from '@temporalio/activity';
import { paymentMethods, type PaymentSettlementDeps } from '../src/payments/methods/registered.ts';
import type { TopUpInput, TopUpResult } from '../workflows/contracts/top-up.types.ts';

export type TopUpActivityDeps = PaymentSettlementDeps;

const heartbeatEveryMs = 3_000;

export function createTopUpActivities(deps: TopUpActivityDeps) {
  return {
    async settleTopUp({ topUpId }: TopUpInput): Promise<TopUpResult> {
      const topUps = paymentMethods.topUps();
      if (!topUps) throw new Error('no payment method offers top-ups');
      // Heartbeats while a transaction is awaited: a worker that dies mid-settlement is noticed in seconds.
      const context = Context.current();
      const beating = setInterval(() => context.heartbeat(), heartbeatEveryMs);
      try {
        const settled = await topUps.settle(deps, topUpId);
        return { outcome: 'settled', transaction: settled.transaction ?? '' };
      } catch (error) {
        const reason = topUps.notSettled(error);
        if (reason !== undefined) return { outcome: 'failed', reason };
        throw error;
      } finally {
        clearInterval(beating);
      }
    },
  };
}

export type TopUpActivities = ReturnType<typeof createTopUpActivities>;

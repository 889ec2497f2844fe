// The tips and next steps a newly registered agent reads: enough to make its first paid generation unaided.
import { formatUsd } from '../../../domain/money.ts';
import type { OnboardedAgent } from '../../../accounts/agents.ts';
import type { TrialRefusal } from '../../../accounts/registration.ts';

const noTrialReasons: Record<TrialRefusal, string> = {
  disabled: 'this server gives no trial credit',
  network: 'this network address has used its trial allowance',
  budget: "today's trial credits on this server are used up",
};

/** `base`: the request's public base URL. */
export function onboarding(base: string, agent: OnboardedAgent) {
  const chains = Object.keys(agent.depositAddresses).join(', ');
  const address = Object.values(agent.depositAddresses)[0];
  return {
    activation_tips: [
      'Store your API key now: it is shown only once. Send it on every call as `Authorization: Bearer <api_key>`.',
      agent.trialCreditApplied
        ? `You start with $${formatUsd(agent.balance)} of trial credit: enough to try a few generations.`
        : `No trial credit was applied: ${noTrialReasons[agent.trialRefusal ?? 'disabled']}. Deposit USDC to start.`,
      `Deposit USDC on ${chains} to ${address}: the address is yours alone, so every deposit is credited to you.`,
      'Ask for a price before you spend: POST /api/v1/agents/quote tells you the cost and whether your balance covers it.',
    ],
    next_steps: [
      'GET /api/v1/models to choose a model (filter with ?type=text-to-image, ?type=text-to-text, …).',
      'POST /api/v1/agents/quote with { "type", "model" } to see the cost.',
      'POST /api/v1/generations with { "type", "model", "prompt" }: it answers 202 with an id and a poll_url.',
      'GET the poll_url until status is "completed" (outputs are links) or "failed" (you are refunded); or set webhook_url to be told.',
      'After a USDC transfer, POST /api/v1/agents/deposit with { "chain", "tx_hash" } to have it credited.',
      `GET /api/v1/agents/balance for your balance and usage. Full reference: ${base}/docs`,
    ],
  };
}

// What agents (and, for quotes, developers) ask of their account: registration, balance, quotes.
import type { Catalog } from '../catalog/catalog.ts';
import { type Price, priceRequest, type PricingInput } from '../catalog/pricing.ts';
import { resolveModel } from '../catalog/resolve.ts';
import type { Config } from '../config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { GenerationType } from '../domain/values.ts';
import type { Principal } from './api-keys.ts';
import { type AccountSummary, getAccountSummary, recentDeposits } from './accounts.ts';
import { depositAddresses } from './deposit-addresses.ts';
import { type AgentRegistration, type RegisteredAgent, registerAgent } from './registration.ts';

export interface AgentServiceDeps {
  prisma: PrismaClient;
  config: Config;
  catalog: Catalog;
}

export interface OnboardedAgent extends RegisteredAgent {
  depositAddresses: Record<string, string>;
}

/** Registers the agent and derives its deposit address on every enabled chain. */
export async function onboardAgent(
  deps: Pick<AgentServiceDeps, 'prisma' | 'config'>,
  registration: AgentRegistration,
): Promise<OnboardedAgent> {
  const agent = await registerAgent(deps.prisma, deps.config, registration);
  return { ...agent, depositAddresses: depositAddresses(deps.config, agent.depositIndex) };
}

export interface AgentBalance {
  summary: AccountSummary;
  deposits: Awaited<ReturnType<typeof recentDeposits>>;
  depositAddresses: Record<string, string>;
}

export async function agentBalance(
  deps: Pick<AgentServiceDeps, 'prisma' | 'config'>,
  accountId: string,
): Promise<AgentBalance> {
  const [summary, deposits] = await Promise.all([
    getAccountSummary(deps.prisma, accountId),
    recentDeposits(deps.prisma, accountId),
  ]);
  return { summary, deposits, depositAddresses: depositAddresses(deps.config, summary.depositIndex) };
}

export interface Quote {
  price: Price;
  availableMicros: bigint;
  /** Where an agent can top up; none for a developer, who pays in USD. */
  depositAddresses: Record<string, string>;
}

/** Prices the request with admission's own function, against the caller's available balance. */
export async function quoteGeneration(
  deps: AgentServiceDeps,
  input: { account: Principal['account']; request: PricingInput & { type: GenerationType; model: string } },
): Promise<Quote> {
  const price = priceRequest(resolveModel(deps.catalog, input.request), input.request);
  const summary = await getAccountSummary(deps.prisma, input.account.id);
  const addresses = input.account.kind === 'agent' ? depositAddresses(deps.config, summary.depositIndex) : {};
  return { price, availableMicros: summary.available, depositAddresses: addresses };
}

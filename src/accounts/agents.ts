// What agents (and, for quotes, developers) ask of their account: registration, balance, quotes.
import type { Catalog } from '../catalog/catalog.ts';
import { type Price, pricedTokens, priceRequest, type PricingInput } from '../catalog/pricing.ts';
import { resolveModel } from '../catalog/resolve.ts';
import type { Config } from '../config/config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { GenerationType } from '../domain/values.ts';
import type { Principal } from './api-keys.ts';
import type { KeyPolicyError } from './key-policy.ts';
import { keyRefusal } from './key-spend.ts';
import { type AccountSummary, getAccountSummary, recentDeposits } from './accounts.ts';
import { depositAddresses } from '../deposits/addresses.ts';
import { type DepositConfirmations, depositConfirmations } from '../deposits/confirmations.ts';
import { type AgentRegistration, type RegisteredAgent, registerAgent } from './registration.ts';

export interface AgentServiceDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'accounts' | 'deposits' | 'chains'>;
  catalog: Catalog;
}

export interface OnboardedAgent extends RegisteredAgent {
  depositAddresses: Record<string, string>;
}

/** Registers the agent (inside `tx` when given) and derives its deposit address on every enabled chain. */
export async function onboardAgent(
  deps: Pick<AgentServiceDeps, 'prisma' | 'config'>,
  registration: AgentRegistration,
  tx?: Prisma.TransactionClient,
): Promise<OnboardedAgent> {
  const agent = await registerAgent(tx ? { tx } : deps.prisma, deps.config, registration);
  return { ...agent, depositAddresses: depositAddresses(deps.config, agent.depositIndex) };
}

export interface AgentBalance {
  summary: AccountSummary;
  deposits: Awaited<ReturnType<typeof recentDeposits>>;
  /** Each deposit's confirmations, by id. */
  confirmations: Map<string, DepositConfirmations>;
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
  return {
    summary,
    deposits,
    confirmations: await depositConfirmations(deps.config.chains, deposits),
    depositAddresses: depositAddresses(deps.config, summary.depositIndex),
  };
}

export interface Quote {
  price: Price;
  /** Per-token (text-to-text) models: the token counts the quote priced, as it carries no text. */
  assumedTokens?: { input: number; output: number };
  availableMicros: bigint;
  /** Why the calling key's policy (or one above it) would refuse the request now; null: it would admit it. */
  keyRefusal: KeyPolicyError | null;
  /** Where an agent can top up; none for a developer, who pays in USD. */
  depositAddresses: Record<string, string>;
}

type QuoteRequest = PricingInput & { type: GenerationType; model: string };

/** The price of a quote request, with admission's own function; a text-to-text quote names the tokens it assumed. */
export function quotePrice(catalog: Catalog, request: QuoteRequest): Pick<Quote, 'price' | 'assumedTokens'> {
  const model = resolveModel(catalog, request);
  const price = priceRequest(model, request);
  if (model.pricing.kind !== 'per_token') return { price };
  const tokens = pricedTokens(model, request);
  return { price, assumedTokens: { input: tokens.input_tokens, output: tokens.output_tokens } };
}

/** Prices the request against the caller's available balance. */
export async function quoteGeneration(
  deps: AgentServiceDeps,
  input: { account: Principal['account']; keyId?: string; request: QuoteRequest },
): Promise<Quote> {
  const priced = quotePrice(deps.catalog, input.request);
  const summary = await getAccountSummary(deps.prisma, input.account.id);
  const addresses = input.account.kind === 'agent' ? depositAddresses(deps.config, summary.depositIndex) : {};
  const asked = { model: input.request.model, type: input.request.type, costMicros: priced.price.micros };
  const refusal = input.keyId ? await keyRefusal(deps.prisma, input.keyId, asked) : null;
  return { ...priced, availableMicros: summary.available, keyRefusal: refusal, depositAddresses: addresses };
}

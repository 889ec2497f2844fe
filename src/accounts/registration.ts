// Agent self-registration with guardrails per client address: a hard cap per window (429), and trial credits
// limited per network (an IPv4 address or an IPv6 /48) and across the whole server per day (later agents start at
// zero, and are told why).
import type { AccountsConfig, Config } from '../config/config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { issueApiKey, type IssuedKey } from './api-keys.ts';
import { deriveDepositAddress } from '../deposits/addresses.ts';
import { DomainError } from '../domain/errors.ts';
import { newId, newWebhookSecret } from '../domain/ids.ts';
import { credit } from '../ledger/ledger.ts';

export class RegistrationCappedError extends DomainError {
  override name = 'RegistrationCappedError';
  constructor(
    readonly limit: number,
    readonly windowMinutes: number,
  ) {
    super(
      'registration_capped',
      `Registration capped: at most ${limit} registrations per client address every ${windowMinutes} minutes. Try again later.`,
    );
  }
}

export interface AgentRegistration {
  agentName: string;
  webhookUrl?: string;
  source?: string;
  platform?: string;
  platformVersion?: string;
  /** Counts toward the registration cap: an IPv4 address or an IPv6 /64. */
  clientAddress: string;
  /** Counts toward the per-network trial limit: an IPv4 address or an IPv6 /48. */
  trialNetwork: string;
  /** The wallet that paid for the registration (x402): it may sign in to recover a key. */
  walletAddress?: string;
}

/** Why a new agent got no trial credit: trials are off, its network had its share today, or the server had. */
export type TrialRefusal = 'disabled' | 'network' | 'budget';

export interface RegisteredAgent {
  agentId: string;
  apiKey: IssuedKey;
  depositIndex: number;
  balance: bigint;
  trialCreditApplied: boolean;
  trialRefusal: TrialRefusal | null;
  webhookUrl: string | null;
  webhookSecret: string | null;
}

type Guardrails = Pick<
  AccountsConfig,
  | 'trialCreditUsd'
  | 'trialCreditsPerAddressPerDay'
  | 'trialCreditsPerDay'
  | 'registrationCapPerAddress'
  | 'registrationCapWindowMinutes'
>;

/**
 * Refuses a registration past the address's cap. Registrations from one address are serialised (transaction lock)
 * so the count cannot be raced past.
 */
async function admitRegistration(tx: Prisma.TransactionClient, guardrails: Guardrails, clientAddress: string) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`register:${clientAddress}`}, 0))`;
  const windowStart = new Date(Date.now() - guardrails.registrationCapWindowMinutes * 60_000);
  const recent = await tx.account.count({ where: { kind: 'agent', clientAddress, createdAt: { gte: windowStart } } });
  if (recent >= guardrails.registrationCapPerAddress) {
    throw new RegistrationCappedError(guardrails.registrationCapPerAddress, guardrails.registrationCapWindowMinutes);
  }
}

/**
 * Whether a new agent from `network` may have a trial credit, and if not why. Trial grants are serialised
 * server-wide (one lock, taken after the address's) so neither the network's count nor the day's budget can be
 * raced past; registrations are rare (and capped per address), so waiting for it costs little.
 */
async function trialRefusal(
  tx: Prisma.TransactionClient,
  guardrails: Guardrails,
  network: string,
): Promise<TrialRefusal | null> {
  if (guardrails.trialCreditUsd <= 0n || guardrails.trialCreditsPerDay === 0) return 'disabled';
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('register:trial-grants', 0))`;
  const dayStart = new Date(Date.now() - 86_400_000);
  const networkToday = await tx.trialGrant.count({ where: { network, grantedAt: { gte: dayStart } } });
  if (networkToday >= guardrails.trialCreditsPerAddressPerDay) return 'network';
  const serverToday = await tx.trialGrant.count({ where: { grantedAt: { gte: dayStart } } });
  return serverToday >= guardrails.trialCreditsPerDay ? 'budget' : null;
}

async function nextDepositIndex(tx: Prisma.TransactionClient): Promise<number> {
  const [row] = await tx.$queryRaw<{ index: number }[]>`SELECT nextval('agent_deposit_index_seq')::int AS index`;
  if (!row) throw new Error('agent_deposit_index_seq returned no value');
  return row.index;
}

/** The client, or a caller's open transaction (`{ tx }`): a paid registration commits with its payment's row. */
export type RegistrationDb = PrismaClient | { tx: Prisma.TransactionClient };

export async function registerAgent(
  db: RegistrationDb,
  config: Pick<Config, 'accounts' | 'deposits'>,
  input: AgentRegistration,
): Promise<RegisteredAgent> {
  const guardrails: Guardrails = config.accounts;
  const run = async (tx: Prisma.TransactionClient): Promise<RegisteredAgent> => {
    await admitRegistration(tx, guardrails, input.clientAddress);
    const refusal = await trialRefusal(tx, guardrails, input.trialNetwork);
    const depositIndex = await nextDepositIndex(tx);
    const agentId = newId('agt');
    const webhookUrl = input.webhookUrl ?? null;
    const webhookSecret = webhookUrl ? newWebhookSecret() : null;
    await tx.account.create({
      data: {
        id: agentId,
        kind: 'agent',
        name: input.agentName,
        platform: input.platform,
        platformVersion: input.platformVersion,
        source: input.source,
        webhookUrl,
        webhookSecret,
        depositIndex,
        depositAddress: deriveDepositAddress(config.deposits.xpub, depositIndex).toLowerCase(),
        clientAddress: input.clientAddress,
        walletAddress: input.walletAddress?.toLowerCase(),
        balance: { create: {} },
      },
    });
    const apiKey = await issueApiKey(tx, { accountId: agentId, kind: 'agent', name: 'registration' });
    if (!refusal) await tx.trialGrant.create({ data: { accountId: agentId, network: input.trialNetwork } });
    const trial = !refusal
      ? await credit(
          { tx },
          {
            accountId: agentId,
            amount: guardrails.trialCreditUsd,
            kind: 'trial_credit',
            idempotencyKey: `trial:${agentId}`,
            memo: 'registration trial credit',
          },
        )
      : null;
    const balance = trial?.balance ?? 0n;
    return {
      agentId,
      apiKey,
      depositIndex,
      balance,
      trialCreditApplied: !refusal,
      trialRefusal: refusal,
      webhookUrl,
      webhookSecret,
    };
  };
  return 'tx' in db ? run(db.tx) : db.$transaction(run);
}

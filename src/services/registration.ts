// Agent self-registration with guardrails per client address: a hard cap per window (429) and a limited number
// of trial credits per day (later agents from that address start at zero, and are told so).
import type { Config } from '../config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { issueApiKey, type IssuedKey } from './api-keys.ts';
import { deriveDepositAddress } from './deposit-addresses.ts';
import { newId, newWebhookSecret } from './ids.ts';
import { credit } from './ledger.ts';

export class RegistrationCappedError extends Error {
  override name = 'RegistrationCappedError';
  constructor(
    readonly limit: number,
    readonly windowMinutes: number,
  ) {
    super(`at most ${limit} registrations per client address every ${windowMinutes} minutes`);
  }
}

export interface AgentRegistration {
  agentName: string;
  webhookUrl?: string;
  source?: string;
  platform?: string;
  platformVersion?: string;
  clientAddress: string;
}

export interface RegisteredAgent {
  agentId: string;
  apiKey: IssuedKey;
  depositIndex: number;
  balance: bigint;
  trialCreditApplied: boolean;
  webhookUrl: string | null;
  webhookSecret: string | null;
}

type Guardrails = Pick<
  Config,
  | 'TRIAL_CREDIT_USD'
  | 'TRIAL_CREDITS_PER_ADDRESS_PER_DAY'
  | 'REGISTRATION_CAP_PER_ADDRESS'
  | 'REGISTRATION_CAP_WINDOW_MINUTES'
  | 'DEPOSIT_XPUB'
>;

/**
 * Refuses a registration past the address's cap, and says whether the address may still have a trial credit.
 * Registrations from one address are serialised (transaction lock) so the counts cannot be raced past.
 */
async function admitRegistration(tx: Prisma.TransactionClient, guardrails: Guardrails, clientAddress: string) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`register:${clientAddress}`}, 0))`;
  const windowStart = new Date(Date.now() - guardrails.REGISTRATION_CAP_WINDOW_MINUTES * 60_000);
  const recent = await tx.account.count({ where: { kind: 'agent', clientAddress, createdAt: { gte: windowStart } } });
  if (recent >= guardrails.REGISTRATION_CAP_PER_ADDRESS) {
    throw new RegistrationCappedError(
      guardrails.REGISTRATION_CAP_PER_ADDRESS,
      guardrails.REGISTRATION_CAP_WINDOW_MINUTES,
    );
  }
  const dayStart = new Date(Date.now() - 86_400_000);
  const trialsToday = await tx.ledgerEntry.count({
    where: { kind: 'trial_credit', createdAt: { gte: dayStart }, account: { clientAddress } },
  });
  return { grantTrial: guardrails.TRIAL_CREDIT_USD > 0n && trialsToday < guardrails.TRIAL_CREDITS_PER_ADDRESS_PER_DAY };
}

async function nextDepositIndex(tx: Prisma.TransactionClient): Promise<number> {
  const [row] = await tx.$queryRaw<{ index: number }[]>`SELECT nextval('agent_deposit_index_seq')::int AS index`;
  if (!row) throw new Error('agent_deposit_index_seq returned no value');
  return row.index;
}

export async function registerAgent(
  prisma: PrismaClient,
  guardrails: Guardrails,
  input: AgentRegistration,
): Promise<RegisteredAgent> {
  return prisma.$transaction(async (tx) => {
    const { grantTrial } = await admitRegistration(tx, guardrails, input.clientAddress);
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
        depositAddress: deriveDepositAddress(guardrails.DEPOSIT_XPUB, depositIndex).toLowerCase(),
        clientAddress: input.clientAddress,
        balance: { create: {} },
      },
    });
    const apiKey = await issueApiKey(tx, { accountId: agentId, kind: 'agent', name: 'registration' });
    const trial = grantTrial
      ? await credit(
          { tx },
          {
            accountId: agentId,
            amount: guardrails.TRIAL_CREDIT_USD,
            kind: 'trial_credit',
            idempotencyKey: `trial:${agentId}`,
            memo: 'registration trial credit',
          },
        )
      : null;
    const balance = trial?.balance ?? 0n;
    return { agentId, apiKey, depositIndex, balance, trialCreditApplied: grantTrial, webhookUrl, webhookSecret };
  });
}

// genctl deposits: the deposits table for operators (what was claimed, where it stands, why one was refused).
import type { PrismaClient } from '../db/prisma.ts';
import type { Deposit, Prisma } from '../generated/prisma/client.ts';
import { formatUsd } from '../domain/money.ts';
import type { DepositStatus } from '../deposits/deposits.ts';
import { CommandError, iso, limitOf, type Output } from './commands.ts';

const depositStatuses = ['pending', 'confirmed', 'credited', 'rejected'] as const satisfies readonly DepositStatus[];

function depositJson(deposit: Deposit) {
  return {
    deposit_id: deposit.id,
    account_id: deposit.accountId,
    chain: deposit.chain,
    tx_hash: deposit.txHash,
    amount_usd: deposit.amount === null ? null : formatUsd(deposit.amount),
    status: deposit.status,
    reason: deposit.reason,
    created_at: iso(deposit.createdAt),
    credited_at: iso(deposit.creditedAt),
  };
}

const depositLine = (deposit: Deposit) =>
  [
    deposit.id,
    deposit.accountId,
    deposit.chain,
    deposit.txHash,
    deposit.amount === null ? '-' : `${formatUsd(deposit.amount)} USD`,
    deposit.status.padEnd(9),
    iso(deposit.createdAt),
    deposit.creditedAt ? `credited ${iso(deposit.creditedAt)}` : '',
    deposit.reason ?? '',
  ]
    .filter(Boolean)
    .join('  ');

/** The newest deposits first, optionally of one account or in one status. */
export async function listDepositsCommand(
  prisma: PrismaClient,
  options: { account?: string; status?: string; limit?: string },
): Promise<Output> {
  if (options.status !== undefined && !(depositStatuses as readonly string[]).includes(options.status))
    throw new CommandError(`--status must be one of ${depositStatuses.join(', ')}`, 2);
  const where: Prisma.DepositWhereInput = { accountId: options.account, status: options.status };
  const deposits = await prisma.deposit.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limitOf(options.limit),
  });
  return {
    json: { deposits: deposits.map(depositJson) },
    text: deposits.length === 0 ? 'No deposits.' : deposits.map(depositLine).join('\n'),
  };
}

const txHashPattern = /^0x[0-9a-fA-F]{64}$/;

/** One deposit by its id (`dep_…`) or by its transaction hash (`--chain` when the hash is on several chains). */
export async function showDepositCommand(
  prisma: PrismaClient,
  target: string | undefined,
  options: { chain?: string },
): Promise<Output> {
  if (!target) throw new CommandError('missing the deposit id or transaction hash', 2);
  let deposit: Deposit | null;
  if (txHashPattern.test(target)) {
    const matches = await prisma.deposit.findMany({
      where: { txHash: target.toLowerCase(), chain: options.chain },
      orderBy: { chain: 'asc' },
    });
    const chainsOf = [...new Set(matches.map((row) => row.chain))];
    if (chainsOf.length > 1)
      throw new CommandError(`${target} is a deposit on ${chainsOf.join(', ')}: add --chain <chain>`);
    // One transaction paying several agents (or one several times) is one deposit per transfer.
    if (matches.length > 1) {
      throw new CommandError(`${target} holds deposits ${matches.map((row) => row.id).join(', ')}: name one by its id`);
    }
    deposit = matches[0] ?? null;
  } else if (target.startsWith('dep_')) {
    deposit = await prisma.deposit.findUnique({ where: { id: target } });
  } else {
    throw new CommandError(`"${target}" is neither a deposit id (dep_…) nor a transaction hash (0x + 64 hex)`, 2);
  }
  if (!deposit) throw new CommandError(`no deposit ${target}${options.chain ? ` on ${options.chain}` : ''}`);
  const json = {
    ...depositJson(deposit),
    log_index: deposit.logIndex,
    from_address: deposit.fromAddress,
    to_address: deposit.toAddress,
    block_number: deposit.blockNumber === null ? null : Number(deposit.blockNumber),
    updated_at: iso(deposit.updatedAt),
  };
  return {
    json,
    text: [
      `${json.deposit_id}  ${json.status}${json.reason ? ` (${json.reason})` : ''}`,
      `account   ${json.account_id}`,
      `chain     ${json.chain}, tx ${json.tx_hash}${json.block_number === null ? '' : `, block ${json.block_number}`}`,
      `amount    ${json.amount_usd === null ? '-' : `${json.amount_usd} USD`}${json.from_address ? ` from ${json.from_address}` : ''}${json.to_address ? ` to ${json.to_address}` : ''}`,
      `created   ${json.created_at}, updated ${json.updated_at}${json.credited_at ? `, credited ${json.credited_at}` : ''}`,
    ].join('\n'),
  };
}

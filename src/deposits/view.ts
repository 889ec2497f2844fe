import type { Deposit } from '../generated/prisma/client.ts';
import { formatUsd } from '../domain/money.ts';
import type { AccountCredit } from './deposits.ts';

/** A deposit as callers see it (spec §2 `recent_deposits`): USD as a decimal string. */
export interface DepositView {
  id: string;
  chain: string;
  amount_usd: string;
  tx_hash: string;
  status: string;
  created_at: string;
}

/** A credited deposit (the deposit.credited webhook, POST /agents/deposit), with the balance right after it. */
export type CreditedDepositView = DepositView & { new_balance: string };

export const depositView = (deposit: Deposit): DepositView => ({
  id: deposit.id,
  chain: deposit.chain,
  amount_usd: formatUsd(deposit.amount ?? 0n),
  tx_hash: deposit.txHash,
  status: deposit.status,
  created_at: deposit.createdAt.toISOString(),
});

/** What one agent received in a deposit transaction: the POST /agents/deposit answer and a webhook per deposit. */
export interface AccountCreditView {
  accountId: string;
  amount_usd: string;
  new_balance: string;
  deposits: CreditedDepositView[];
}

export function accountCreditView(credit: AccountCredit): AccountCreditView {
  const new_balance = formatUsd(credit.balanceAfter);
  return {
    accountId: credit.accountId,
    amount_usd: formatUsd(credit.amount),
    new_balance,
    deposits: credit.deposits.map((deposit) => ({ ...depositView(deposit), new_balance })),
  };
}

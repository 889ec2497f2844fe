// Paying from an account's balance: the account has a key, its Idempotency-Key names a retry, and admission reserves
// the price (the workflow's admit activity); nothing is verified here.
import { IdempotencyKeyReusedError, ServiceUnavailableError } from '../../../domain/errors.ts';
import { derivedId, newId } from '../../../domain/ids.ts';
import type { AccountKind } from '../../../generated/prisma/client.ts';
import { admitTask, findTaskByIdempotencyKey } from '../../../generations/tasks.ts';
import type { PaymentMethod } from '../payment-method.ts';

/** An account with a key: its balance is reserved, and its Idempotency-Key names a retry. */
export interface BalancePayer {
  kind: 'balance';
  account: { id: string; kind: AccountKind };
  idempotencyKey: string | null;
}

/** The same account and key always name the same task; without a key, every request is a new one. */
export const balanceTaskId = (accountId: string, idempotencyKey: string | null) =>
  idempotencyKey ? derivedId('gen', `${accountId}\n${idempotencyKey}`) : newId('gen');

export const balanceMethod: PaymentMethod<BalancePayer, unknown> = {
  kind: 'balance',
  admit: (prisma, input) => admitTask(prisma, input),
  admission: (_deps, payer) => {
    const { account, idempotencyKey } = payer;
    const taskId = balanceTaskId(account.id, idempotencyKey);
    return {
      accountKind: account.kind,
      uploadsOwner: account.id,
      handsAccess: false,
      earlierTask: async (prisma) =>
        idempotencyKey ? findTaskByIdempotencyKey(prisma, account.id, idempotencyKey) : null,
      authorize: async () => ({ taskId, accountId: account.id, idempotencyKey }),
      reusedError: () => new IdempotencyKeyReusedError(),
      unavailableError: () =>
        // Its row may have committed before the fault (then adopted and run): a retry with the key finds that task.
        new ServiceUnavailableError(
          'The generation could not be confirmed in time. Retry with the same Idempotency-Key: you get the task if it ' +
            'was admitted (charged once), or it is admitted now.',
        ),
    };
  },
  paid: (paidBy) => paidBy.payment === undefined,
  describe: () => 'from the balance',
};

// Paying from an account's balance: the account has a key, its Idempotency-Key names a retry, and admission reserves
// the price (the workflow's admit activity); nothing is verified here.
import { IdempotencyKeyReusedError, ServiceUnavailableError } from '../../../domain/errors.ts';
import { derivedId, newId } from '../../../domain/ids.ts';
import type { AccountKind } from '../../../generated/prisma/client.ts';
import { admitTask, findTaskByIdempotencyKey } from '../../../generations/tasks.ts';
import type { PaymentMethod, PricedRequest } from '../payment-method.ts';
import { type KeyPolicy, requestRefusal } from '../../../accounts/key-policy.ts';

/** An account with a key: its balance is reserved, and its Idempotency-Key names a retry. */
export interface BalancePayer {
  kind: 'balance';
  account: { id: string; kind: AccountKind };
  idempotencyKey: string | null;
  /** The API key asking (none for an operator's replay): its policy is checked here and where the cost is reserved. */
  key?: { id: string; policy: KeyPolicy | null };
}

/** The key's policy on the request as priced: refused before anything is downloaded or reserved. */
function checkPolicy(key: BalancePayer['key'], priced: PricedRequest, costMicros: bigint) {
  const refusal = requestRefusal(key?.policy ?? null, {
    model: priced.request.model,
    type: priced.request.type,
    costMicros,
  });
  if (refusal) throw refusal;
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
      checkBeforeMeasuring: async (declared, leastMicros) => checkPolicy(payer.key, declared, leastMicros),
      authorize: async (priced) => {
        checkPolicy(payer.key, priced, priced.costMicros);
        return { taskId, accountId: account.id, idempotencyKey, ...(payer.key && { apiKeyId: payer.key.id }) };
      },
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

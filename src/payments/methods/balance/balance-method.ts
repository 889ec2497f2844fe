// Paying from an account's balance: the account has a key, its Idempotency-Key names a retry, and admission reserves
// the price (the workflow's admit activity); nothing is verified here.
import { IdempotencyKeyReusedError, ServiceUnavailableError } from '../../../domain/errors.ts';
import type { Config } from '../../../config/config.ts';
import { newId, secretDerivedId } from '../../../domain/ids.ts';
import type { AccountKind } from '../../../generated/prisma/client.ts';
import { admitTask, findTaskByIdempotencyKey } from '../../../generations/tasks.ts';
import type { PaymentMethod, PricedRequest } from '../payment-method.ts';
import { type KeyPolicy, requestRefusal } from '../../../accounts/key-policy.ts';
import { balanceReceiptFacts } from './balance-receipts.ts';

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

export interface BalanceMethodDeps {
  config: Pick<Config, 'outputs'>;
}

/**
 * The same claim always names the same task; without an Idempotency-Key, every request is a new one. Keyed with the
 * server's secret: account ids and keys like `order-42` are no secret, and the id names the task's output links. A key
 * with a policy claims apart from the account's other keys, so two of them racing never join one task.
 */
export function balanceTaskId(
  secret: string,
  accountId: string,
  idempotencyKey: string | null,
  policyKeyId: string | null = null,
) {
  if (!idempotencyKey) return newId('gen');
  return secretDerivedId('gen', secret, [accountId, ...(policyKeyId ? [policyKeyId] : []), idempotencyKey].join('\n'));
}

/**
 * An Idempotency-Key is the account's, as Stripe's are: any of its keys retrying it gets its task (a rotated key
 * too). A key with a policy sees only its own tasks, so another key's under the same Idempotency-Key is refused.
 */
function visibleEarlierTask<T extends { apiKeyId: string | null }>(key: BalancePayer['key'], task: T | null) {
  if (task && key?.policy && task.apiKeyId !== key.id)
    throw new IdempotencyKeyReusedError('This Idempotency-Key was already used by another API key of this account.');
  return task;
}

export const balanceMethod: PaymentMethod<BalancePayer, BalanceMethodDeps> = {
  kind: 'balance',
  receiptFacts: balanceReceiptFacts,
  // Its payer's credential is an API key: any `Authorization` no other method's scheme claims.
  keyed: true,
  admit: (prisma, input) => admitTask(prisma, input),
  admission: (deps, payer) => {
    const { account, idempotencyKey, key } = payer;
    const policyKeyId = key?.policy ? key.id : null;
    const taskId = balanceTaskId(deps.config.outputs.taskIdSecret, account.id, idempotencyKey, policyKeyId);
    // A retry is admitted as the task its key named, whatever derived that task's id (one made before the secret too).
    let earlier: { id: string } | null = null;
    return {
      accountKind: account.kind,
      uploadsOwner: account.id,
      handsAccess: false,
      earlierTask: async (prisma) => {
        const found = idempotencyKey ? await findTaskByIdempotencyKey(prisma, account.id, idempotencyKey) : null;
        return (earlier = visibleEarlierTask(key, found));
      },
      checkBeforeMeasuring: async (declared, leastMicros) => checkPolicy(payer.key, declared, leastMicros),
      authorize: async (priced) => {
        checkPolicy(payer.key, priced, priced.costMicros);
        const claim = { taskId: earlier?.id ?? taskId, accountId: account.id, idempotencyKey };
        return { ...claim, ...(key && { apiKeyId: key.id }) };
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

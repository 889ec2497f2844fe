// A pretend third way to pay, "cash", as x402's core tests register a pretend scheme: it proves the registry is
// generic. Its credential rides *in* Authorization (`Authorization: Cash <voucher>`, as MPP's `Payment` will); a
// request carrying none is challenged with `WWW-Authenticate: Cash …` beside x402's offer; a voucher of the till
// admits a task drawn on the till's drawer account, is held while the task runs and settled (taken) once it delivered.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { DomainError, PaymentReusedError, ServiceUnavailableError } from '../../../src/domain/errors.ts';
import { newId } from '../../../src/domain/ids.ts';
import { formatUsd } from '../../../src/domain/money.ts';
import { admitTask } from '../../../src/generations/tasks.ts';
import type { PaymentAuthorization } from '../../../src/payments/methods/authorizations.ts';
import type { PaymentMethod } from '../../../src/payments/methods/payment-method.ts';

export interface CashPayer {
  kind: 'cash';
  voucher: string | null;
}

/** Vouchers, each worth `value` micro-USD drawn on `drawer`'s balance; what each holds for a task, and settled. */
export class Till {
  readonly vouchers = new Map<string, { value: bigint; heldFor?: string; settled?: bigint }>();
  /** The account the vouchers are drawn on (set once the test has made it). */
  drawer = '';

  issue(value: bigint): string {
    const voucher = `cash_${randomBytes(12).toString('hex')}`;
    this.vouchers.set(voucher, { value });
    return voucher;
  }

  heldFor(taskId: string) {
    return [...this.vouchers.entries()].find(([, held]) => held.heldFor === taskId);
  }
}

const voucherOf = (headers: IncomingHttpHeaders) => /^Cash\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];

const challenge = (costMicros: bigint) => ({
  'WWW-Authenticate': `Cash realm="gateway", amount="${formatUsd(costMicros)}"`,
});

export function cashMethod(till: Till): PaymentMethod<CashPayer, unknown, unknown> {
  return {
    kind: 'cash',
    credential: (headers) => (voucherOf(headers) ? 'authorization' : undefined),
    keyless: { offered: () => true, payer: (headers) => ({ kind: 'cash', voucher: voucherOf(headers) ?? null }) },
    challenge: (_config, { costMicros }) => challenge(costMicros),
    admission: (_deps, { voucher }) => ({
      accountKind: 'developer',
      uploadsOwner: till.drawer,
      handsAccess: false,
      earlierTask: async () => null,
      authorize: async (priced) => {
        const held = voucher ? till.vouchers.get(voucher) : undefined;
        if (!voucher || !held || held.heldFor || held.value < priced.costMicros)
          throw new DomainError('payment_required', 'Pay with a cash voucher worth the price.', {
            headers: challenge(priced.costMicros),
          });
        const payment = {
          scheme: 'cash',
          payer: voucher,
          amount: String(priced.costMicros),
          validBefore: '9999999999',
        };
        // The workflow input's `payment` is typed as x402's authorization (authorizations.ts): a held kind of its own.
        return { taskId: newId('gen'), accountId: till.drawer, idempotencyKey: null, payment: payment as never };
      },
      reusedError: () => new PaymentReusedError(),
      unavailableError: () => new ServiceUnavailableError('Retry with the same voucher.'),
    }),
    // Worker side: the voucher is held for the task, whose price is reserved from the drawer as a balance's is.
    admit: async (prisma, { payment, ...input }) => {
      const held = till.vouchers.get((payment as { payer: string }).payer);
      if (!held) throw new Error('an unknown voucher');
      held.heldFor = input.taskId;
      return admitTask(prisma, input);
    },
    paid: (paidBy) => (paidBy.payment as PaymentAuthorization | undefined)?.scheme === 'cash',
    describe: (paidBy) => `paid in cash with ${paidBy.payment?.payer}`,
    holds: async (_deps, taskId) => till.heldFor(taskId) !== undefined,
    // What the voucher paid once settled (the drawer's balance names its own charge beside it).
    receiptFacts: async (_prisma, task, resourceUrl) => {
      const [voucher, held] = till.heldFor(task.id) ?? [];
      if (!voucher || held?.settled === undefined) return null;
      const paid = { id: task.id, resourceUrl, payer: voucher, network: 'cash', issuedAt: new Date() };
      return [{ ...paid, kind: 'payment', transaction: `voucher:${voucher}`, amount: held.settled }];
    },
    settle: async (_deps, { taskId, usedMicros }) => {
      const [, held] = till.heldFor(taskId) ?? [];
      if (held) held.settled = usedMicros;
    },
  };
}

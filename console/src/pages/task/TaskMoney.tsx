// What the task cost and where the money went: charged from the balance, refunded when it failed, or its x402 payment.
import { formatUsd } from '../../format';
import type { Task } from '../../tasks/TaskSummary';
import { Section } from '../../ui/Section';

function balanceOutcome(task: Task): string {
  if (task.status === 'failed') return 'Nothing charged: the reservation went back to the balance.';
  if (task.status === 'completed') return 'Charged to the balance.';
  return 'Reserved from the balance; charged when it completes, refunded if it fails or is cancelled.';
}

export function TaskMoney({ task }: { task: Task }) {
  const payment = task.payment;
  return (
    <Section title="Cost">
      {task.cost !== undefined && <p className="figure">{formatUsd(task.cost)}</p>}
      {!payment && <p className="muted">{balanceOutcome(task)}</p>}
      {payment && (
        <dl className="facts">
          <div>
            <dt>Paid with</dt>
            <dd>
              x402 {payment.scheme} on {payment.network}
            </dd>
          </div>
          <div>
            <dt>Payment</dt>
            <dd>
              {payment.status}: {formatUsd(payment.amount_settled ?? payment.amount)}
            </dd>
          </div>
          <div>
            <dt>Payer</dt>
            <dd className="mono">{payment.payer}</dd>
          </div>
          {payment.transaction && (
            <div>
              <dt>Transaction</dt>
              <dd className="mono">{payment.transaction}</dd>
            </div>
          )}
        </dl>
      )}
    </Section>
  );
}

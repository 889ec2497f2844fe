// A key's budget window as a bar: spent, then reserved, against the budget; without a budget, what it spent.
import type { components } from '../../api/schema';
import { formatTime, formatUsd } from '../../format';

type KeyWindow = components['schemas']['KeyWithWindow'];

const windowNames = { day: 'today', week: 'this week', month: 'this month', total: 'in all' } as const;

export function BudgetBar({ keyWindow }: { keyWindow: KeyWindow }) {
  const budget = keyWindow.policy?.budget;
  const when = windowNames[keyWindow.window];
  if (!budget) return <p className="muted">No budget · {formatUsd(keyWindow.spent)} spent in all</p>;
  const share = (amount: number) => `${Math.min(100, (amount / budget.amount) * 100)}%`;
  const summary = `${formatUsd(keyWindow.spent)} spent and ${formatUsd(keyWindow.reserved)} reserved of ${formatUsd(budget.amount)} ${when}`;
  return (
    <div className="budget">
      <div className="budget-bar" role="img" aria-label={summary}>
        <span className="budget-spent" style={{ width: share(keyWindow.spent) }} />
        <span className="budget-reserved" style={{ width: share(keyWindow.reserved) }} />
      </div>
      <p className="muted">
        {summary}
        {keyWindow.resets_at && ` · resets ${formatTime(keyWindow.resets_at)}`}
      </p>
    </div>
  );
}

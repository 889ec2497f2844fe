// Spend over the last 30 days (GET /usage?group_by=day) as a bar chart.
import { useMemo } from 'react';
import { useUsageReport } from '../../api/usage-report';
import { formatUsd } from '../../format';
import { DayBars } from '../../charts/DayBars';
import { spendSeries } from '../../charts/spend-days';
import { QueryStatus } from '../../ui/Loading';
import { Section } from '../../ui/Section';

export function SpendChart() {
  const spend = useUsageReport({ group_by: 'day' });
  const series = useMemo(
    () => spend.data && spendSeries(spend.data.rows, spend.data.from, spend.data.to),
    [spend.data],
  );
  return (
    <Section title="Spend, last 30 days">
      <QueryStatus query={spend} />
      {spend.data && series && (
        <>
          <p className="figure">{formatUsd(spend.data.totals.cost)}</p>
          <p className="muted">
            {spend.data.totals.tasks} {spend.data.totals.tasks === 1 ? 'task' : 'tasks'}
            {spend.data.totals.refunded > 0 && `, ${formatUsd(spend.data.totals.refunded)} refunded`}
          </p>
          <DayBars data={series} />
        </>
      )}
    </Section>
  );
}

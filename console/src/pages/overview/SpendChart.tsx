// Spend over the last 30 days (GET /usage?group_by=day) as a bar chart.
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useSession } from '../../api/session';
import { usageReport } from '../../api/usage-report';
import { formatUsd } from '../../format';
import { DayBars } from '../../charts/DayBars';
import { spendSeries } from '../../charts/spend-days';

function useSpend() {
  const { client } = useSession();
  return useQuery({
    queryKey: ['usage', 'day'],
    queryFn: () => usageReport(client, { group_by: 'day' }),
  });
}

export function SpendChart() {
  const spend = useSpend();
  const series = useMemo(
    () => spend.data && spendSeries(spend.data.rows, spend.data.from, spend.data.to),
    [spend.data],
  );
  return (
    <section className="card" aria-labelledby="spend-heading">
      <h2 id="spend-heading">Spend, last 30 days</h2>
      {spend.isPending && <p className="muted">Loading…</p>}
      {spend.isError && <p className="error">{spend.error.message}</p>}
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
    </section>
  );
}

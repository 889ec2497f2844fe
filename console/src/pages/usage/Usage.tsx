// Usage (GET /usage) over a period, grouped by day, model, type or key: a chart, the table with units, and the same
// report as CSV (the server writes it, Accept: text/csv).
import { useMutation } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { useSession } from '../../api/session';
import { usageCsv, type UsageQuery, useUsageReport } from '../../api/usage-report';
import { DayBars } from '../../charts/DayBars';
import { spendSeries } from '../../charts/spend-days';
import { formatUsd } from '../../format';
import { CategoryBars } from './CategoryBars';
import { type Grouping, groupLabel, unitsText } from './usage-rows';

const groupings: Grouping[] = ['day', 'model', 'type', 'key'];
const dayMs = 86_400_000;
const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);

function download(blob: Blob, name: string) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

export function Usage() {
  const id = useId();
  const { client } = useSession();
  const [from, setFrom] = useState(() => utcDay(Date.now() - 29 * dayMs));
  const [to, setTo] = useState(() => utcDay(Date.now()));
  const [grouping, setGrouping] = useState<Grouping>('day');
  const query: UsageQuery = { from, to, group_by: grouping };
  const usage = useUsageReport(query);
  const csv = useMutation({
    mutationFn: () => usageCsv(client, query),
    onSuccess: (blob) => download(blob, `usage-${from}-${to}-by-${grouping}.csv`),
  });
  const report = usage.data;
  const series = useMemo(() => report && spendSeries(report.rows, report.from, report.to), [report]);

  return (
    <>
      <h1>Usage</h1>
      <form className="filters" aria-label="Period and grouping" onSubmit={(event) => event.preventDefault()}>
        <div className="field">
          <label htmlFor={`${id}-from`}>From (UTC day)</label>
          <input id={`${id}-from`} type="date" value={from} max={to} onChange={(e) => setFrom(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-to`}>To (UTC day, included)</label>
          <input id={`${id}-to`} type="date" value={to} min={from} onChange={(e) => setTo(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-group`}>By</label>
          <select id={`${id}-group`} value={grouping} onChange={(e) => setGrouping(e.target.value as Grouping)}>
            {groupings.map((each) => (
              <option key={each}>{each}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <span className="label" aria-hidden="true">
            &nbsp;
          </span>
          <button type="button" className="secondary" disabled={csv.isPending} onClick={() => csv.mutate()}>
            {csv.isPending ? 'Preparing…' : 'Download CSV'}
          </button>
        </div>
      </form>
      {csv.isError && (
        <p className="error" role="alert">
          {csv.error.message}
        </p>
      )}
      {usage.isPending && <p className="muted">Loading…</p>}
      {usage.isError && <p className="error">{usage.error.message}</p>}
      {report && (
        <>
          <section className="card" aria-labelledby="usage-total-heading">
            <h2 id="usage-total-heading">Total</h2>
            <p className="figure">{formatUsd(report.totals.cost)}</p>
            <p className="muted">
              {report.totals.tasks} tasks: {report.totals.completed} completed, {report.totals.failed} failed,{' '}
              {report.totals.cancelled} cancelled · {formatUsd(report.totals.refunded)} refunded
            </p>
            {grouping === 'day' && series && <DayBars data={series} />}
            {grouping !== 'day' && (
              <CategoryBars items={report.rows.map((row) => ({ label: groupLabel(row, grouping), cost: row.cost }))} />
            )}
          </section>
          <section className="card" aria-labelledby="usage-table-heading">
            <h2 id="usage-table-heading">By {grouping}</h2>
            {report.rows.length === 0 ? (
              <p className="muted">No task ended in this period.</p>
            ) : (
              <div className="table-scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{grouping}</th>
                      <th scope="col">Tasks</th>
                      <th scope="col">Completed</th>
                      <th scope="col">Failed</th>
                      <th scope="col">Cost</th>
                      <th scope="col">Refunded</th>
                      <th scope="col">Units</th>
                    </tr>
                  </thead>
                  <tbody>
                    {report.rows.map((row) => (
                      <tr key={groupLabel(row, grouping) + (row.key_id ?? '')}>
                        <th scope="row">{groupLabel(row, grouping)}</th>
                        <td>{row.tasks}</td>
                        <td>{row.completed}</td>
                        <td>{row.failed}</td>
                        <td>{formatUsd(row.cost)}</td>
                        <td>{formatUsd(row.refunded)}</td>
                        <td>{unitsText(row.units)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </>
  );
}

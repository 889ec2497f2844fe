// Usage (GET /usage) over a period, grouped by day, model, type or key: a chart, the table with units, and the same
// report as CSV (the server writes it, Accept: text/csv). The period and grouping are in the URL (?from=…&to=…&group_by=…;
// by default the last 30 days by day).
import { useMutation } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useSession } from '../../api/session';
import { usageCsv, useUsageReport } from '../../api/usage-report';
import { DayBars } from '../../charts/DayBars';
import { spendSeries } from '../../charts/spend-days';
import { formatUsd } from '../../format';
import { ErrorLine } from '../../ui/ErrorLine';
import { Field } from '../../ui/Field';
import { QueryStatus } from '../../ui/Loading';
import { Section } from '../../ui/Section';
import { dayOf, useUrlFilters } from '../../ui/use-url-filters';
import { CategoryBars } from './CategoryBars';
import { type Grouping, groupLabel, unitsText, type UsageReport } from './usage-rows';
import './usage.css';

const groupings: Grouping[] = ['day', 'model', 'type', 'key'];
const dayMs = 86_400_000;
const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);

interface Period {
  from: string;
  to: string;
  group_by: Grouping;
}

/** The period the URL names, each part the default where it names none. */
function periodFrom(search: URLSearchParams): Period {
  return {
    from: dayOf(search.get('from')) ?? utcDay(Date.now() - 29 * dayMs),
    to: dayOf(search.get('to')) ?? utcDay(Date.now()),
    group_by: groupings.find((each) => each === search.get('group_by')) ?? 'day',
  };
}

function download(blob: Blob, name: string) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

function useCsvDownload({ from, to, group_by: grouping }: Period) {
  const { client } = useSession();
  return useMutation({
    mutationFn: () => usageCsv(client, { from, to, group_by: grouping }),
    onSuccess: (blob) => download(blob, `usage-${from}-${to}-by-${grouping}.csv`),
  });
}

/** The period and grouping, and the CSV of the report they make. */
function PeriodForm({ period, onChange }: { period: Period; onChange: (period: Period) => void }) {
  const { from, to, group_by: grouping } = period;
  const csv = useCsvDownload(period);
  return (
    <>
      <form className="filters" aria-label="Period and grouping" onSubmit={(event) => event.preventDefault()}>
        <Field label="From (UTC day)">
          {(control) => (
            <input
              {...control}
              type="date"
              value={from}
              max={to}
              onChange={(e) => onChange({ ...period, from: e.target.value })}
            />
          )}
        </Field>
        <Field label="To (UTC day, included)">
          {(control) => (
            <input
              {...control}
              type="date"
              value={to}
              min={from}
              onChange={(e) => onChange({ ...period, to: e.target.value })}
            />
          )}
        </Field>
        <Field label="By">
          {(control) => (
            <select
              {...control}
              value={grouping}
              onChange={(e) => onChange({ ...period, group_by: e.target.value as Grouping })}
            >
              {groupings.map((each) => (
                <option key={each}>{each}</option>
              ))}
            </select>
          )}
        </Field>
        <button type="button" className="secondary" disabled={csv.isPending} onClick={() => csv.mutate()}>
          {csv.isPending ? 'Preparing…' : 'Download CSV'}
        </button>
      </form>
      <ErrorLine error={csv.error} />
    </>
  );
}

function Total({ report, grouping }: { report: UsageReport; grouping: Grouping }) {
  const series = useMemo(() => spendSeries(report.rows, report.from, report.to), [report]);
  const { totals } = report;
  return (
    <Section title="Total">
      <p className="figure">{formatUsd(totals.cost)}</p>
      <p className="muted">
        {totals.tasks} tasks: {totals.completed} completed, {totals.failed} failed, {totals.cancelled} cancelled ·{' '}
        {formatUsd(totals.refunded)} refunded
      </p>
      {grouping === 'day' && <DayBars data={series} />}
      {grouping !== 'day' && (
        <CategoryBars items={report.rows.map((row) => ({ label: groupLabel(row, grouping), cost: row.cost }))} />
      )}
    </Section>
  );
}

function Table({ report, grouping }: { report: UsageReport; grouping: Grouping }) {
  return (
    <div className="table-scroll">
      <table>
        <thead>
          <tr>
            {[grouping, 'Tasks', 'Completed', 'Failed', 'Cost', 'Refunded', 'Units'].map((name) => (
              <th key={name} scope="col">
                {name}
              </th>
            ))}
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
  );
}

export function Usage() {
  const [period, setPeriod] = useUrlFilters(periodFrom);
  const usage = useUsageReport(period);
  const grouping = period.group_by;
  const report = usage.data;
  return (
    <>
      <h1>Usage</h1>
      <PeriodForm period={period} onChange={setPeriod} />
      <QueryStatus query={usage} />
      {report && (
        <>
          <Total report={report} grouping={grouping} />
          <Section title={`By ${grouping}`}>
            {report.rows.length === 0 ? (
              <p className="muted">No task ended in this period.</p>
            ) : (
              <Table report={report} grouping={grouping} />
            )}
          </Section>
        </>
      )}
    </>
  );
}

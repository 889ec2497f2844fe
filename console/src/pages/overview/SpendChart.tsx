// Spend over the last 30 days (GET /usage?group_by=day) as a bar chart drawn by uPlot.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useSession } from '../../api/session';
import { usageReport } from '../../api/usage-report';
import { formatUsd } from '../../format';
import { spendSeries } from './spend-days';

function useSpend() {
  const { client } = useSession();
  return useQuery({
    queryKey: ['usage', 'day'],
    queryFn: () => usageReport(client, { group_by: 'day' }),
  });
}

function chartOptions(width: number): uPlot.Options {
  const accent = getComputedStyle(document.documentElement).getPropertyValue('--accent').trim() || '#3b6ea8';
  const ink = getComputedStyle(document.documentElement).getPropertyValue('--muted').trim() || '#666';
  const axis = { stroke: ink, grid: { stroke: 'rgba(128,128,128,0.15)' }, ticks: { show: false } };
  return {
    width,
    height: 180,
    legend: { show: false },
    cursor: { show: true, points: { show: false } },
    scales: { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [axis, { ...axis, values: (_u, ticks) => ticks.map((tick) => formatUsd(tick)), size: 64 }],
    series: [
      {},
      {
        label: 'Spend',
        stroke: accent,
        fill: accent,
        paths: uPlot.paths.bars!({ size: [0.7, 24] }),
        points: { show: false },
      },
    ],
  };
}

function Chart({ data }: { data: [number[], number[]] }) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const plot = new uPlot(chartOptions(element.clientWidth), data, element);
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: 180 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [data]);
  return <div ref={container} className="chart" aria-hidden="true" />;
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
          <Chart data={series} />
        </>
      )}
    </section>
  );
}

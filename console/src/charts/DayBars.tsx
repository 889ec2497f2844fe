// USD by UTC day as bars, drawn by uPlot on a canvas (decorative: the figures are also given as text or a table).
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatUsd } from '../format';
import './charts.css';

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

export function DayBars({ data }: { data: [number[], number[]] }) {
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

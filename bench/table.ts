// The benchmark's one table: each row what was offered, what came back, and the target it is held to.
import { achievedRate, type Measured, percentile } from './load.ts';

export interface Row {
  name: string;
  /** `30/s` for an open loop, `16 in flight` for a closed one. */
  offered: string;
  requests: number;
  /** What the row measures beyond its latencies: a rate, a ratio, a cost. */
  result: string;
  p50?: number;
  p99?: number;
  target?: string;
  holds?: boolean;
}

export const perSecond = (rate: number) => `${rate.toFixed(1)}/s`;

/** A row for a loop: its rate (and, open loop, the share of the offered rate it kept up with) and latencies. */
export function loadRow(name: string, offered: number | string, measured: Measured, extra = ''): Row {
  const rate = achievedRate(measured);
  const keptUp = typeof offered === 'number' ? `, ${Math.min(100, (100 * rate) / offered).toFixed(0)}% kept up` : '';
  const failed = measured.failures > 0 ? `, ${measured.failures} failed (${measured.firstError})` : '';
  return {
    name,
    offered: typeof offered === 'number' ? perSecond(offered) : offered,
    requests: measured.latencies.length + measured.failures,
    result: `${perSecond(rate)}${keptUp}${extra}${failed}`,
    p50: percentile(measured.latencies, 50),
    p99: percentile(measured.latencies, 99),
  };
}

/** The same row held to a target. */
export const withTarget = (row: Row, target: string, holds: boolean): Row => ({ ...row, target, holds });

const ms = (value: number | undefined) => (value === undefined ? '' : value.toFixed(1));

export function formatTable(rows: Row[]): string {
  return [
    '| measurement | offered | requests | result | p50 ms | p99 ms | target | holds |',
    '|---|---:|---:|---|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.offered} | ${r.requests || ''} | ${r.result} | ${ms(r.p50)} | ${ms(r.p99)} | ` +
        `${r.target ?? ''} | ${r.holds === undefined ? '' : r.holds ? 'yes' : '**no**'} |`,
    ),
  ].join('\n');
}

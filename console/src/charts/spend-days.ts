// The usage report's rows by day, with the days without tasks filled in as zero, for a continuous chart.
export interface DayCost {
  day?: string;
  cost: number;
}

const dayMs = 86_400_000;

/** One point per UTC day from `from` (inclusive) to `to` (exclusive): [unix seconds[], USD[]]. */
export function spendSeries(rows: DayCost[], from: string, to: string): [number[], number[]] {
  const costByDay = new Map(rows.map((row) => [row.day, row.cost]));
  const times: number[] = [];
  const costs: number[] = [];
  const start = Date.parse(from.slice(0, 10));
  for (let time = start; time < Date.parse(to); time += dayMs) {
    times.push(time / 1000);
    costs.push(costByDay.get(new Date(time).toISOString().slice(0, 10)) ?? 0);
  }
  return [times, costs];
}

// The period a usage report covers, in the whole hours its aggregates are kept by: a day is 00:00 to 24:00 UTC, a
// timestamp is rounded outward to its hour, so the report always says exactly which period it summed.
const hourMs = 3_600_000;
const dayMs = 86_400_000;
const defaultDays = 30;

const isDay = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value);
const hourFloor = (ms: number) => Math.floor(ms / hourMs) * hourMs;
const hourCeil = (ms: number) => Math.ceil(ms / hourMs) * hourMs;

export interface UsagePeriod {
  from: Date;
  to: Date;
}

/** `from` inclusive, `to` exclusive; given as days (`to` included whole) or timestamps. Default: the last 30 days. */
export function usagePeriod(given: { from?: string; to?: string }, now = new Date()): UsagePeriod {
  const to = given.to
    ? isDay(given.to)
      ? Date.parse(`${given.to}T00:00:00Z`) + dayMs
      : hourCeil(Date.parse(given.to))
    : hourCeil(now.getTime());
  const from = given.from
    ? hourFloor(Date.parse(isDay(given.from) ? `${given.from}T00:00:00Z` : given.from))
    : Math.floor(now.getTime() / dayMs) * dayMs - (defaultDays - 1) * dayMs;
  return { from: new Date(from), to: new Date(to) };
}

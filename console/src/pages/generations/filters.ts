// The Generations page's filters live in the URL's query (?status=…&type=…&model=…&key_id=…&from=…&to=…), so a
// filtered view can be shared and survives a reload; only what GET /generations filters on, days as UTC days.
import type { operations } from '../../api/schema';
import { dayOf } from '../../ui/use-url-filters';

type HistoryQuery = NonNullable<operations['listGenerations']['parameters']['query']>;
export type Filters = Pick<HistoryQuery, 'status' | 'type' | 'model' | 'key_id'> & {
  /** The first and last day (YYYY-MM-DD, UTC) of the tasks shown, both included. */
  from?: string;
  to?: string;
};

const dayMs = 86_400_000;

const statuses = ['queued', 'processing', 'completed', 'failed'] as const;
export const filterStatuses: readonly NonNullable<Filters['status']>[] = statuses;

export function filtersFrom(search: URLSearchParams): Filters {
  const status = statuses.find((each) => each === search.get('status'));
  return {
    status,
    type: (search.get('type') || undefined) as Filters['type'],
    model: search.get('model') || undefined,
    key_id: search.get('key_id') || undefined,
    from: dayOf(search.get('from')),
    to: dayOf(search.get('to')),
  };
}

/** The filters as GET /generations takes them: its bounds are exclusive instants (tasks have milliseconds). */
export function historyQuery({ from, to, ...rest }: Filters): HistoryQuery {
  const startOf = (day: string) => Date.parse(`${day}T00:00:00Z`);
  return {
    ...rest,
    created_after: from ? new Date(startOf(from) - 1).toISOString() : undefined,
    created_before: to ? new Date(startOf(to) + dayMs).toISOString() : undefined,
  };
}

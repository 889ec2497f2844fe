// The Generations page's filters live in the URL's query (?status=…&type=…&model=…), so a filtered view can be shared
// and survives a reload; only what GET /generations filters on.
import type { operations } from '../../api/schema';

type HistoryQuery = NonNullable<operations['listGenerations']['parameters']['query']>;
export type Filters = Pick<HistoryQuery, 'status' | 'type' | 'model'>;

const statuses = ['queued', 'processing', 'completed', 'failed'] as const;
export const filterStatuses: readonly NonNullable<Filters['status']>[] = statuses;

export function filtersFrom(search: URLSearchParams): Filters {
  const status = statuses.find((each) => each === search.get('status'));
  return {
    status,
    type: (search.get('type') || undefined) as Filters['type'],
    model: search.get('model') || undefined,
  };
}

/** The query string for `filters`, without the empty ones. */
export function searchOf(filters: Filters): string {
  const entries = Object.entries(filters).filter((entry): entry is [string, string] => !!entry[1]);
  return new URLSearchParams(entries).toString();
}

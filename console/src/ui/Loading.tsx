// What a page shows while its data is on its way: "Loading…" (a polite status), or the query's error line, announced.
import type { ReactNode } from 'react';
import { ErrorLine } from './ErrorLine';

export function Loading({ children = 'Loading…' }: { children?: ReactNode }) {
  return (
    <p className="muted" role="status">
      {children}
    </p>
  );
}

interface QueryState {
  isPending: boolean;
  isError: boolean;
  error: unknown;
}

/** Loading while `query` has nothing yet, its error line when it failed; nothing once it has its data. */
export function QueryStatus({ query, loading }: { query: QueryState; loading?: ReactNode }) {
  if (query.isError) return <ErrorLine error={query.error} />;
  return query.isPending ? <Loading>{loading}</Loading> : null;
}

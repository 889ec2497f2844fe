// A page's filters live in the URL's query (?status=…&from=…), so a reload, Back and a shared link keep them: each
// change is a new history entry. The page says how to read them (with its defaults for what the URL leaves out); they
// are written without the empty ones.
import { useSearchParams } from 'wouter';

/** Filters as the URL holds them: text (a day, a status, an id), or nothing. */
export type UrlFilters<Filters = Record<string, unknown>> = { [Name in keyof Filters]: string | undefined };

export function useUrlFilters<Filters extends UrlFilters<Filters>>(
  read: (search: URLSearchParams) => Filters,
): [Filters, (next: Filters) => void] {
  const [search, setSearch] = useSearchParams();
  return [read(search), (next) => setSearch(searchOf(next))];
}

/** The query string for `filters`, without the empty ones. */
export function searchOf(filters: UrlFilters): string {
  const entries = Object.entries(filters).filter((entry): entry is [string, string] => !!entry[1]);
  return new URLSearchParams(entries).toString();
}

/** A day (YYYY-MM-DD) the URL names, or undefined for anything else. */
export const dayOf = (text: string | null) => (text && /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : undefined);

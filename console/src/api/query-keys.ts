// Query keys come from the API paths, never written by hand: openapi-react-query keys a query [method, path,
// parameters], so a path names every query of a resource, whatever page asked it. The account's event stream
// refreshes every API query (use-live-updates.ts); what never changes in a session says so with `staleTime: 'static'`.
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import type { paths } from './schema';

export type ApiPath = keyof paths;

/** The API path a query reads, or undefined for a query of something else (a file's text). */
export function apiPathOf(queryKey: QueryKey): ApiPath | undefined {
  const [method, path] = queryKey;
  return typeof method === 'string' && typeof path === 'string' && path.startsWith('/') ? (path as ApiPath) : undefined;
}

/** Refreshes every query of the API, on every page, shown or cached. */
export const invalidateApi = (queryClient: QueryClient) =>
  queryClient.invalidateQueries({ predicate: (query) => apiPathOf(query.queryKey) !== undefined });

/** Refreshes every query of `path`, whatever its parameters. */
export const invalidatePath = (queryClient: QueryClient, path: ApiPath) =>
  queryClient.invalidateQueries({ predicate: (query) => apiPathOf(query.queryKey) === path });

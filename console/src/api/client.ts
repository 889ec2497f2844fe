// The typed client of the public API: paths and bodies come from schema.d.ts, generated from the OpenAPI document.
// Its queries (openapi-react-query) are keyed by what they ask: [method, path, parameters] (see query-keys.ts).
import createClient, { type Middleware } from 'openapi-fetch';
import createQueryClient, { type OpenapiQueryClient } from 'openapi-react-query';
import type { paths } from './schema';

export type ApiClient = ReturnType<typeof createClient<paths>>;
export type ApiQueries = OpenapiQueryClient<paths>;

/** A client that sends `key` as its bearer token on every request (never in a URL). */
export function apiClient(key: string): ApiClient {
  const client = createClient<paths>({ baseUrl: '/api/v1' });
  const bearer: Middleware = {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${key}`);
      return request;
    },
  };
  client.use(bearer);
  return client;
}

/** The queries of `client`: `useQuery('get', '/keys')`, `queryOptions(…)`, each keyed by its path and parameters. */
export const apiQueries = (client: ApiClient): ApiQueries => createQueryClient(client);

/** The API's error body (or an Error) as a message a person can read. */
export function errorMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error && typeof error.message === 'string') {
    return error.message;
  }
  return 'The gateway did not answer as expected.';
}

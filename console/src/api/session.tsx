// The signed-in key, its client and its queries, shared by every page through React context.
import { createContext, useContext } from 'react';
import type { KeyKind } from '../auth/key-store';
import type { ApiClient, ApiQueries } from './client';

export interface Session {
  client: ApiClient;
  /** The client's queries: `api.useQuery('get', '/keys')`, keyed by the path and its parameters. */
  api: ApiQueries;
  kind: KeyKind;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in shell');
  return session;
}

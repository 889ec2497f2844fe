// The signed-in key and its client, shared by every page through React context.
import { createContext, useContext } from 'react';
import type { KeyKind } from '../auth/key-store';
import type { ApiClient } from './client';

export interface Session {
  client: ApiClient;
  kind: KeyKind;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in shell');
  return session;
}

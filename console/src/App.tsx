// Signed out: the sign-in screen; signed in: the shell, with one typed API client for the session's key.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Router } from 'wouter';
import { apiClient } from './api/client';
import { SessionContext } from './api/session';
import { forgetKey, keyKind, storedKey, storeKey } from './auth/key-store';
import { SignIn } from './auth/SignIn';
import { Shell } from './shell/Shell';

export function App() {
  const [key, setKey] = useState(storedKey);
  const queryClient = useMemo(() => new QueryClient({ defaultOptions: { queries: { staleTime: 15_000 } } }), [key]);
  const session = useMemo(() => (key ? { client: apiClient(key), kind: keyKind(key) } : undefined), [key]);

  function signIn(newKey: string, remember: boolean) {
    storeKey(newKey, remember);
    setKey(newKey);
  }

  function signOut() {
    forgetKey();
    queryClient.clear();
    setKey(undefined);
  }

  if (!session) return <SignIn onSignedIn={signIn} />;
  return (
    <SessionContext.Provider value={session}>
      <QueryClientProvider client={queryClient}>
        <Router base="/console">
          <Shell kind={session.kind} onSignOut={signOut} />
        </Router>
      </QueryClientProvider>
    </SessionContext.Provider>
  );
}

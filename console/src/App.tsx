// Signed out: the sign-in screen; signed in: the shell, with one typed API client for the session's key. The OAuth
// consent screen (/console/authorize) is outside the shell: signing in there stays on it, with its `?request=`.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Route, Router, Switch, useRoute } from 'wouter';
import { apiClient, apiQueries } from './api/client';
import { SessionContext } from './api/session';
import { forgetKey, keyKind, storedKey, storeKey } from './auth/key-store';
import { SignIn } from './auth/SignIn';
import { Consent } from './pages/authorize/Consent';
import { Shell } from './shell/Shell';

const authorizePath = '/authorize';

function SignedOut({ onSignedIn }: { onSignedIn: (key: string, remember: boolean) => void }) {
  const [authorizing] = useRoute(authorizePath);
  const purpose = authorizing
    ? 'An application asks to use this gateway for you: sign in with a key that has the keys scope to review it.'
    : undefined;
  return <SignIn onSignedIn={onSignedIn} purpose={purpose} />;
}

export function App() {
  const [key, setKey] = useState(storedKey);
  const queryClient = useMemo(() => new QueryClient({ defaultOptions: { queries: { staleTime: 15_000 } } }), [key]);
  const session = useMemo(() => {
    if (!key) return undefined;
    const client = apiClient(key);
    return { client, api: apiQueries(client), kind: keyKind(key) };
  }, [key]);

  function signIn(newKey: string, remember: boolean) {
    storeKey(newKey, remember);
    setKey(newKey);
  }

  function signOut() {
    forgetKey();
    queryClient.clear();
    setKey(undefined);
  }

  if (!session)
    return (
      <Router base="/console">
        <SignedOut onSignedIn={signIn} />
      </Router>
    );
  return (
    <SessionContext.Provider value={session}>
      <QueryClientProvider client={queryClient}>
        <Router base="/console">
          <Switch>
            <Route path={authorizePath}>
              <Consent onSignOut={signOut} />
            </Route>
            <Route>
              <Shell kind={session.kind} onSignOut={signOut} />
            </Route>
          </Switch>
        </Router>
      </QueryClientProvider>
    </SessionContext.Provider>
  );
}

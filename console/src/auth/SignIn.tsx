// The sign-in screen: the key is checked against the API before it is kept.
import { type FormEvent, useState } from 'react';
import { apiClient, errorMessage } from '../api/client';
import { Field } from '../ui/Field';
import { keyKind } from './key-store';
import './sign-in.css';

interface Props {
  onSignedIn: (key: string, remember: boolean) => void;
  /** Why signing in is asked for, when it is for something other than the console itself. */
  purpose?: string;
}

/** Any authenticated read answers whether the key works: an agent's balance or a developer's. */
async function checkKey(key: string): Promise<string | undefined> {
  const client = apiClient(key);
  const answer = keyKind(key) === 'agent' ? await client.GET('/agents/balance') : await client.GET('/account/balance');
  return answer.error ? errorMessage(answer.error) : undefined;
}

export function SignIn({ onSignedIn, purpose }: Props) {
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  const [problem, setProblem] = useState<string>();
  const [checking, setChecking] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = key.trim();
    setChecking(true);
    setProblem(undefined);
    try {
      const failure = await checkKey(trimmed);
      if (failure) setProblem(failure);
      else onSignedIn(trimmed, remember);
    } catch {
      setProblem('The gateway could not be reached.');
    } finally {
      setChecking(false);
    }
  }

  return (
    <main className="sign-in">
      <form className="card sign-in-card" onSubmit={(event) => void submit(event)} method="post">
        <h1>Generation Gateway</h1>
        {purpose && <p>{purpose}</p>}
        <p className="muted">Sign in with an API key (sk_…, vega_… or rf_…).</p>
        <Field label="API key" error={problem}>
          {(control) => (
            <input
              {...control}
              name="api-key"
              type="password"
              autoComplete="off"
              spellCheck={false}
              required
              value={key}
              onChange={(event) => setKey(event.target.value)}
            />
          )}
        </Field>
        <label className="checkbox">
          <input type="checkbox" checked={remember} onChange={(event) => setRemember(event.target.checked)} />
          Remember on this device
        </label>
        <button type="submit" disabled={checking}>
          {checking ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

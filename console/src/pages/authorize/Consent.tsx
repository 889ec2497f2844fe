// The OAuth consent screen (/console/authorize?request=…, where /oauth/authorize sends the person): which application
// asks, for what, and where the answer goes; what the grant may spend (a budget and window, models, an expiry); Allow or
// Deny, then the browser goes where the answer says: the application with its code (or, on a loopback redirect,
// `access_denied`), else the gateway's own /oauth/ended page. Outside the shell's navigation.
import { useMutation } from '@tanstack/react-query';
import { type ReactNode, useEffect, useId, useState } from 'react';
import { useSearch } from 'wouter';
import { dataOf } from '../../api/answer';
import type { components } from '../../api/schema';
import { useSession } from '../../api/session';
import { useCurrentKey } from '../../api/use-current-key';
import { useModels } from '../../catalog/use-models';
import { ErrorLine } from '../../ui/ErrorLine';
import { Field } from '../../ui/Field';
import { Loading } from '../../ui/Loading';
import { ChoiceList, UsdField, WindowField } from '../../key-policy/PolicyFields';
import {
  type ConsentAnswer,
  type ConsentDraft,
  defaultConsentDraft,
  destinationOf,
  expiries,
  grantAnswer,
} from './consent-draft';
import './consent.css';

type KeyScope = components['schemas']['KeyScope'];
type ConsentRequest = components['schemas']['OAuthConsentRequest'];

const scopeMeanings: Record<KeyScope, string> = {
  generate: 'start and cancel generations, paid from your balance',
  read: 'read generations, the balance and usage',
  keys: 'make and revoke keys',
};

function useConsentRequest(request: string) {
  return useSession().api.useQuery(
    'get',
    '/oauth/consent',
    { params: { query: { request } } },
    { enabled: request !== '', retry: false, staleTime: 'static', refetchOnWindowFocus: false },
  );
}

function useAnswer(request: string) {
  const { client } = useSession();
  return useMutation({
    mutationFn: async (answer: ConsentAnswer) =>
      dataOf(await client.POST('/oauth/consent', { body: { request, ...answer } })),
    onSuccess: (answered) => window.location.assign(answered.redirect_to),
  });
}

/** The focused card every state of the screen is shown in, with the signed-in key and a way to use another. */
function ConsentCard({
  heading,
  children,
  onSignOut,
}: {
  heading: string;
  children: ReactNode;
  onSignOut: () => void;
}) {
  const headingId = useId();
  const current = useCurrentKey();
  return (
    <main className="sign-in">
      <section className="card consent-card" aria-labelledby={headingId}>
        <h1 id={headingId}>{heading}</h1>
        {children}
        <p className="muted signed-in-as">
          {current.data ? (
            <>
              Signed in with the key “{current.data.name}” (<span className="mono">{current.data.prefix}…</span>).{' '}
            </>
          ) : null}
          <button type="button" className="link" onClick={onSignOut}>
            Use another key
          </button>
        </p>
      </section>
    </main>
  );
}

/** Who asks, for what, and where the answer goes. */
function Asked({ asked, destination }: { asked: ConsentRequest; destination: string }) {
  return (
    <>
      <p>
        <strong>{asked.client.name}</strong> asks to use this gateway’s MCP endpoint on your behalf, to:
      </p>
      <ul className="consent-scopes">
        {asked.scopes.map((scope) => (
          <li key={scope}>
            <strong>{scope}</strong>: {scopeMeanings[scope]}
          </li>
        ))}
      </ul>
      <dl className="facts">
        <div>
          <dt>MCP endpoint</dt>
          <dd className="mono">{asked.resource}</dd>
        </div>
        <div>
          <dt>Answer sent to</dt>
          <dd className="mono" title={asked.redirect_uri}>
            {destination}
          </dd>
        </div>
      </dl>
      <p className="muted">
        The name is the one the application gave itself: allow only if you started this from it. The grant is a key you
        can revoke at any time on the Keys page.
      </p>
    </>
  );
}

/** What the grant may spend: a budget and its window, an expiry, the models allowed. */
function GrantLimits({ draft, set }: { draft: ConsentDraft; set: (change: Partial<ConsentDraft>) => void }) {
  const models = useModels().data ?? [];
  return (
    <fieldset>
      <legend>What it may spend</legend>
      <div className="options">
        <UsdField label="Budget (USD)" value={draft.budget} onChange={(budget) => set({ budget })} />
        <WindowField label="Budget window" value={draft.window} onChange={(window) => set({ window })} />
        <Field label="Expires">
          {(control) => (
            <select
              {...control}
              value={draft.expiresInDays}
              onChange={(event) => set({ expiresInDays: event.target.value })}
            >
              {expiries.map((expiry) => (
                <option key={expiry.days} value={expiry.days}>
                  {expiry.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <ChoiceList
        label="Models allowed (none chosen: any)"
        options={models.map((model) => model.id)}
        value={draft.models}
        onChange={(chosen) => set({ models: chosen })}
      />
    </fieldset>
  );
}

function ConsentForm({ request, asked }: { request: string; asked: ConsentRequest }) {
  const [draft, setDraft] = useState<ConsentDraft>(defaultConsentDraft);
  const answer = useAnswer(request);
  const destination = destinationOf(asked.redirect_uri);
  const busy = answer.isPending || answer.isSuccess;
  return (
    <>
      <Asked asked={asked} destination={destination} />
      <form
        className="consent-form"
        onSubmit={(event) => {
          event.preventDefault();
          answer.mutate(grantAnswer(draft));
        }}
      >
        <GrantLimits draft={draft} set={(change) => setDraft({ ...draft, ...change })} />
        <ErrorLine error={answer.error} />
        <div className="actions">
          <button type="submit" disabled={busy}>
            Allow
          </button>
          <button type="button" className="secondary" disabled={busy} onClick={() => answer.mutate({ approve: false })}>
            Deny
          </button>
          <span role="status" className="muted">
            {busy && `Sending you back to ${destination}…`}
          </span>
        </div>
      </form>
    </>
  );
}

export function Consent({ onSignOut }: { onSignOut: () => void }) {
  const request = new URLSearchParams(useSearch()).get('request') ?? '';
  const asked = useConsentRequest(request);
  const name = asked.data?.client.name;
  useEffect(() => {
    document.title = `${name ? `Authorize ${name}` : 'Authorize'} · Generation Gateway`;
  }, [name]);

  if (!request || asked.isError)
    return (
      <ConsentCard heading="This authorization request cannot be used" onSignOut={onSignOut}>
        <ErrorLine error={asked.isError ? asked.error : 'This address carries no authorization request.'} />
        <p>
          Start again from the application that sent you here. <a href="/console/overview">Open the console</a>
        </p>
      </ConsentCard>
    );
  if (!asked.data)
    return (
      <ConsentCard heading="Authorize an application" onSignOut={onSignOut}>
        <Loading>Loading the request…</Loading>
      </ConsentCard>
    );
  return (
    <ConsentCard heading={`Authorize ${asked.data.client.name}`} onSignOut={onSignOut}>
      <ConsentForm request={request} asked={asked.data} />
    </ConsentCard>
  );
}

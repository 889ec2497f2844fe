// The account's webhook: its URL (set, change, remove: PUT /webhooks) and the secret that signs it, revealed on request
// (GET /account/webhook-secret). A key without the `keys` scope sees the URL only.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { dataOf } from '../../api/answer';
import type { components } from '../../api/schema';
import { useSession } from '../../api/session';
import { ErrorLine } from '../../ui/ErrorLine';
import { Field, FieldSet } from '../../ui/Field';
import { FormSection } from '../../ui/Section';
import { toggled } from '../../ui/toggled';

function useWebhook() {
  return useSession().api.useQuery('get', '/webhooks');
}

type WebhookEvent = components['schemas']['AccountWebhook']['events'][number];
type Setting = { webhook_url: string | null; events: WebhookEvent[] };

/** What each event is, in the words of the checkbox that selects it. */
const eventLabels: Record<WebhookEvent, string> = {
  'generation.completed': 'A task completed',
  'generation.failed': 'A task failed',
  'deposit.credited': 'A deposit was credited',
  'key.budget_threshold': "A key's budget reached 80 or 100 %",
};

function useSetWebhook() {
  const { client, api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: Setting) => dataOf(await client.PUT('/webhooks', { body })),
    onSuccess: (saved) => queryClient.setQueryData(api.queryOptions('get', '/webhooks').queryKey, saved),
  });
}

function SigningSecret() {
  const { client } = useSession();
  const secret = useMutation({
    mutationFn: async () => dataOf(await client.GET('/account/webhook-secret')).webhook_secret,
  });
  return (
    <FieldSet legend="Signing secret (Standard Webhooks, HMAC-SHA256)" error={secret.error}>
      {secret.data ? (
        <p className="mono secret-value">{secret.data}</p>
      ) : (
        <div>
          <button type="button" className="secondary" disabled={secret.isPending} onClick={() => secret.mutate()}>
            Reveal secret
          </button>
        </div>
      )}
    </FieldSet>
  );
}

interface EventsProps {
  events: WebhookEvent[];
  disabled: boolean;
  onChange: (events: WebhookEvent[]) => void;
}

function EventChoices({ events, disabled, onChange }: EventsProps) {
  return (
    <FieldSet legend="Events" hint="None ticked: every event, including ones added later.">
      <div className="options">
        {(Object.keys(eventLabels) as WebhookEvent[]).map((event) => (
          <label key={event} className="checkbox">
            <input
              type="checkbox"
              disabled={disabled}
              checked={events.includes(event)}
              onChange={(change) => onChange(toggled(events, event, change.target.checked))}
            />
            {eventLabels[event]} <span className="mono muted">{event}</span>
          </label>
        ))}
      </div>
    </FieldSet>
  );
}

/** Save, and Remove while there is a webhook. */
function SaveActions({
  save,
  onRemove,
  removable,
}: {
  save: ReturnType<typeof useSetWebhook>;
  onRemove: () => void;
  removable: boolean;
}) {
  return (
    <div className="actions">
      <button type="submit" disabled={save.isPending}>
        {save.isPending ? 'Saving…' : 'Save'}
      </button>
      {removable && (
        <button type="button" className="secondary" disabled={save.isPending} onClick={onRemove}>
          Remove
        </button>
      )}
      <span role="status" className="muted">
        {save.isSuccess && 'Saved.'}
      </span>
    </div>
  );
}

export function WebhookSettings({ mayManage }: { mayManage: boolean }) {
  const webhook = useWebhook();
  const save = useSetWebhook();
  const [draft, setDraft] = useState<string>();
  const [eventsDraft, setEventsDraft] = useState<WebhookEvent[]>();
  const shown = draft ?? webhook.data?.webhook_url ?? '';
  const events = eventsDraft ?? webhook.data?.events ?? [];
  const saved = () => {
    setDraft(undefined);
    setEventsDraft(undefined);
  };
  return (
    <FormSection
      title="Account webhook"
      onSubmit={() => save.mutate({ webhook_url: shown.trim() || null, events }, { onSuccess: saved })}
    >
      <p className="muted">The account's events go here, besides a task's own webhook_url.</p>
      <ErrorLine error={webhook.error} />
      <Field label="Webhook URL">
        {(control) => (
          <input
            {...control}
            type="url"
            placeholder="https://example.com/hooks/gateway"
            readOnly={!mayManage}
            value={shown}
            onChange={(event) => setDraft(event.target.value)}
          />
        )}
      </Field>
      <EventChoices events={events} disabled={!mayManage} onChange={setEventsDraft} />
      {mayManage && (
        <SaveActions
          save={save}
          removable={!!webhook.data?.webhook_url}
          onRemove={() => save.mutate({ webhook_url: null, events: [] }, { onSuccess: saved })}
        />
      )}
      <ErrorLine error={save.error} />
      {mayManage && <SigningSecret />}
      {!mayManage && <p className="muted">This key has no `keys` scope: it cannot change the webhook.</p>}
    </FormSection>
  );
}

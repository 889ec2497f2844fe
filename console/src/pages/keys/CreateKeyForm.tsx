// Make a key: name, scopes, a budget and its window, models and types allowed, a cap per task, an expiry day. What it
// leaves empty the new key inherits from this session's key; the API refuses anything wider.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { dataOf } from '../../api/answer';
import { invalidatePath } from '../../api/query-keys';
import { useSession } from '../../api/session';
import { typesOf, useModels } from '../../catalog/use-models';
import { ErrorLine } from '../../ui/ErrorLine';
import { Field, FieldSet } from '../../ui/Field';
import { FormSection } from '../../ui/Section';
import { toggled } from '../../ui/toggled';
import { createKeyRequest, emptyKeyDraft, type KeyDraft, type KeyScope } from './key-draft';
import { ChoiceList, UsdField, WindowField } from '../../key-policy/PolicyFields';

const allScopes: KeyScope[] = ['generate', 'read', 'keys'];

function useCreateKey(onCreated: (secret: string) => void) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (draft: KeyDraft) => dataOf(await client.POST('/keys', { body: createKeyRequest(draft) })),
    onSuccess: (created) => {
      onCreated(created.api_key);
      void invalidatePath(queryClient, '/keys');
    },
  });
}

interface DraftProps {
  draft: KeyDraft;
  set: (change: Partial<KeyDraft>) => void;
}

/** The scopes the new key gets: those of this session's key, ticked or not (the others cannot be given). */
function ScopeChoices({ draft, set, scopes }: DraftProps & { scopes: KeyScope[] }) {
  return (
    <FieldSet legend="Scopes">
      <div className="options">
        {allScopes.map((scope) => (
          <label key={scope} className="checkbox">
            <input
              type="checkbox"
              disabled={!scopes.includes(scope)}
              checked={draft.scopes.includes(scope)}
              onChange={(event) => set({ scopes: toggled(draft.scopes, scope, event.target.checked) })}
            />
            {scope}
          </label>
        ))}
      </div>
    </FieldSet>
  );
}

/** What the new key may spend, and until when. */
function Limits({ draft, set }: DraftProps) {
  return (
    <div className="options">
      <UsdField label="Budget (USD)" value={draft.budget} onChange={(budget) => set({ budget })} />
      <WindowField label="Budget window" value={draft.window} onChange={(window) => set({ window })} />
      <UsdField
        label="Most per task (USD)"
        value={draft.maxCostPerTask}
        onChange={(maxCostPerTask) => set({ maxCostPerTask })}
      />
      <Field label="Expires after (UTC day)">
        {(control) => (
          <input
            {...control}
            type="date"
            value={draft.expiresOn}
            onChange={(event) => set({ expiresOn: event.target.value })}
          />
        )}
      </Field>
    </div>
  );
}

/** The types and models the new key may use (none chosen: any). */
function Allowed({ draft, set }: DraftProps) {
  const models = useModels().data ?? [];
  return (
    <div className="options">
      <ChoiceList
        label="Types allowed (none chosen: any)"
        options={typesOf(models)}
        value={draft.types}
        onChange={(types) => set({ types })}
      />
      <ChoiceList
        label="Models allowed (none chosen: any)"
        options={models.map((model) => model.id)}
        value={draft.models}
        onChange={(chosen) => set({ models: chosen })}
      />
    </div>
  );
}

export function CreateKeyForm({ scopes, onCreated }: { scopes: KeyScope[]; onCreated: (secret: string) => void }) {
  const [draft, setDraft] = useState(() => emptyKeyDraft(scopes));
  const create = useCreateKey((secret) => {
    setDraft(emptyKeyDraft(scopes));
    onCreated(secret);
  });
  const set = (change: Partial<KeyDraft>) => setDraft({ ...draft, ...change });
  return (
    <FormSection title="New key" onSubmit={() => create.mutate(draft)}>
      <Field label="Name">
        {(control) => (
          <input
            {...control}
            type="text"
            required
            maxLength={100}
            value={draft.name}
            onChange={(event) => set({ name: event.target.value })}
          />
        )}
      </Field>
      <ScopeChoices draft={draft} set={set} scopes={scopes} />
      <Limits draft={draft} set={set} />
      <Allowed draft={draft} set={set} />
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create key'}
        </button>
      </div>
      <ErrorLine error={create.error} />
    </FormSection>
  );
}

// Make a key: name, scopes, a budget and its window, models and types allowed, a cap per task, an expiry day. What it
// leaves empty the new key inherits from this session's key; the API refuses anything wider.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { dataOf } from '../../api/answer';
import { invalidatePath } from '../../api/query-keys';
import { useSession } from '../../api/session';
import { typesOf, useModels } from '../../catalog/use-models';
import { createKeyRequest, emptyKeyDraft, type KeyDraft, type KeyScope } from './key-draft';
import { ChoiceList, UsdField, WindowField } from './PolicyFields';
import { toggled } from '../../ui/toggled';

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

export function CreateKeyForm({ scopes, onCreated }: { scopes: KeyScope[]; onCreated: (secret: string) => void }) {
  const id = useId();
  const models = useModels().data ?? [];
  const [draft, setDraft] = useState(() => emptyKeyDraft(scopes));
  const create = useCreateKey((secret) => {
    setDraft(emptyKeyDraft(scopes));
    onCreated(secret);
  });
  const set = (change: Partial<KeyDraft>) => setDraft({ ...draft, ...change });
  return (
    <form
      className="card key-form"
      aria-labelledby={`${id}-heading`}
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate(draft);
      }}
    >
      <h2 id={`${id}-heading`}>New key</h2>
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          type="text"
          required
          maxLength={100}
          value={draft.name}
          onChange={(event) => set({ name: event.target.value })}
        />
      </div>
      <fieldset className="field">
        <legend className="label">Scopes</legend>
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
      </fieldset>
      <div className="options">
        <UsdField
          id={`${id}-budget`}
          label="Budget (USD)"
          value={draft.budget}
          onChange={(budget) => set({ budget })}
        />
        <WindowField
          id={`${id}-window`}
          label="Budget window"
          value={draft.window}
          onChange={(window) => set({ window })}
        />
        <UsdField
          id={`${id}-max`}
          label="Most per task (USD)"
          value={draft.maxCostPerTask}
          onChange={(maxCostPerTask) => set({ maxCostPerTask })}
        />
        <div className="field">
          <label htmlFor={`${id}-expires`}>Expires after (UTC day)</label>
          <input
            id={`${id}-expires`}
            type="date"
            value={draft.expiresOn}
            onChange={(event) => set({ expiresOn: event.target.value })}
          />
        </div>
      </div>
      <div className="options">
        <ChoiceList
          id={`${id}-types`}
          label="Types allowed (none chosen: any)"
          options={typesOf(models)}
          value={draft.types}
          onChange={(types) => set({ types })}
        />
        <ChoiceList
          id={`${id}-models`}
          label="Models allowed (none chosen: any)"
          options={models.map((model) => model.id)}
          value={draft.models}
          onChange={(chosen) => set({ models: chosen })}
        />
      </div>
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create key'}
        </button>
      </div>
      {create.isError && (
        <p className="error" role="alert">
          {create.error.message}
        </p>
      )}
    </form>
  );
}

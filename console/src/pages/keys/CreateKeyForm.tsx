// Make a key: name, scopes, a budget and its window, models and types allowed, a cap per task, an expiry day. What it
// leaves empty the new key inherits from this session's key; the API refuses anything wider.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { dataOf } from '../../api/answer';
import { useSession } from '../../api/session';
import { typesOf, useModels } from '../../catalog/use-models';
import { type BudgetWindow, createKeyRequest, emptyKeyDraft, type KeyDraft, type KeyScope } from './key-draft';
import { toggled } from '../../ui/toggled';

const allScopes: KeyScope[] = ['generate', 'read', 'keys'];
const windows: BudgetWindow[] = ['day', 'week', 'month', 'total'];

function useCreateKey(onCreated: (secret: string) => void) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (draft: KeyDraft) => dataOf(await client.POST('/keys', { body: createKeyRequest(draft) })),
    onSuccess: (created) => {
      onCreated(created.api_key);
      void queryClient.invalidateQueries({ queryKey: ['keys'] });
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
        <div className="field">
          <label htmlFor={`${id}-budget`}>Budget (USD)</label>
          <input
            id={`${id}-budget`}
            type="number"
            min="0"
            step="0.000001"
            inputMode="decimal"
            value={draft.budget}
            onChange={(event) => set({ budget: event.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-window`}>Budget window</label>
          <select
            id={`${id}-window`}
            value={draft.window}
            onChange={(event) => set({ window: event.target.value as BudgetWindow })}
          >
            {windows.map((window) => (
              <option key={window}>{window}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-max`}>Most per task (USD)</label>
          <input
            id={`${id}-max`}
            type="number"
            min="0"
            step="0.000001"
            inputMode="decimal"
            value={draft.maxCostPerTask}
            onChange={(event) => set({ maxCostPerTask: event.target.value })}
          />
        </div>
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
        <div className="field">
          <label htmlFor={`${id}-types`}>Types allowed (none chosen: any)</label>
          <select
            id={`${id}-types`}
            multiple
            size={5}
            value={draft.types}
            onChange={(event) => set({ types: [...event.target.selectedOptions].map((option) => option.value) })}
          >
            {typesOf(models).map((type) => (
              <option key={type}>{type}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-models`}>Models allowed (none chosen: any)</label>
          <select
            id={`${id}-models`}
            multiple
            size={5}
            value={draft.models}
            onChange={(event) => set({ models: [...event.target.selectedOptions].map((option) => option.value) })}
          >
            {models.map((model) => (
              <option key={model.id}>{model.id}</option>
            ))}
          </select>
        </div>
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

// Status, type and model pickers for the history (the models offered are those of the chosen type), the key that made
// the tasks (for a key that manages keys) and a range of days.
import { useCurrentKey } from '../../api/use-current-key';
import { useManagedKeys } from '../../api/use-managed-keys';
import { typesOf, useModels } from '../../catalog/use-models';
import { Field } from '../../ui/Field';
import { type Filters, filterStatuses } from './filters';

interface Props {
  filters: Filters;
  onChange: (filters: Filters) => void;
}

interface AnyOfProps {
  label: string;
  value: string | undefined;
  /** Each choice's value, and its name where that differs (a key's id and name). */
  choices: readonly (string | { value: string; name: string })[];
  onChange: (value: string | undefined) => void;
}

/** A select whose first choice, "Any", filters nothing. */
function AnyOf({ label, value, choices, onChange }: AnyOfProps) {
  return (
    <Field label={label}>
      {(control) => (
        <select {...control} value={value ?? ''} onChange={(event) => onChange(event.target.value || undefined)}>
          <option value="">Any</option>
          {choices.map((choice) =>
            typeof choice === 'string' ? (
              <option key={choice}>{choice}</option>
            ) : (
              <option key={choice.value} value={choice.value}>
                {choice.name}
              </option>
            ),
          )}
        </select>
      )}
    </Field>
  );
}

function Day({ label, value, onChange }: Omit<AnyOfProps, 'choices'>) {
  return (
    <Field label={label}>
      {(control) => (
        <input
          {...control}
          type="date"
          value={value ?? ''}
          onChange={(event) => onChange(event.target.value || undefined)}
        />
      )}
    </Field>
  );
}

export function HistoryFilters({ filters, onChange }: Props) {
  const models = useModels().data ?? [];
  const mayManage = useCurrentKey().data?.scopes.includes('keys') ?? false;
  const keys = useManagedKeys(mayManage).data ?? [];
  const offered = models.filter((model) => !filters.type || model.type === filters.type).map((model) => model.id);
  // A model the catalog no longer lists (an old task's) stays selectable when the URL names it.
  if (filters.model && !offered.includes(filters.model)) offered.push(filters.model);
  const set = (change: Partial<Filters>) => onChange({ ...filters, ...change });
  return (
    <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
      <AnyOf
        label="Status"
        value={filters.status}
        choices={filterStatuses}
        onChange={(status) => set({ status: status as Filters['status'] })}
      />
      <AnyOf
        label="Type"
        value={filters.type}
        choices={typesOf(models)}
        onChange={(type) => set({ type: type as Filters['type'], model: undefined })}
      />
      <AnyOf label="Model" value={filters.model} choices={offered} onChange={(model) => set({ model })} />
      {mayManage && (
        <AnyOf
          label="Key"
          value={filters.key_id}
          choices={keys.map((key) => ({ value: key.id, name: key.name }))}
          onChange={(key_id) => set({ key_id })}
        />
      )}
      <Day label="From" value={filters.from} onChange={(from) => set({ from })} />
      <Day label="To" value={filters.to} onChange={(to) => set({ to })} />
    </form>
  );
}

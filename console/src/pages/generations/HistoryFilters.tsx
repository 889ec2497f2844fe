// Status, type and model pickers for the history (the models offered are those of the chosen type), the key that made
// the tasks (for a key that manages keys) and a range of days.
import { useId } from 'react';
import { useCurrentKey } from '../../api/use-current-key';
import { useManagedKeys } from '../../api/use-managed-keys';
import { typesOf, useModels } from '../../catalog/use-models';
import { type Filters, filterStatuses } from './filters';

interface Props {
  filters: Filters;
  onChange: (filters: Filters) => void;
}

export function HistoryFilters({ filters, onChange }: Props) {
  const models = useModels().data ?? [];
  const mayManage = useCurrentKey().data?.scopes.includes('keys') ?? false;
  const keys = useManagedKeys(mayManage).data ?? [];
  const id = useId();
  const offered = models.filter((model) => !filters.type || model.type === filters.type).map((model) => model.id);
  // A model the catalog no longer lists (an old task's) stays selectable when the URL names it.
  if (filters.model && !offered.includes(filters.model)) offered.push(filters.model);
  return (
    <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
      <div className="field">
        <label htmlFor={`${id}-status`}>Status</label>
        <select
          id={`${id}-status`}
          value={filters.status ?? ''}
          onChange={(event) => onChange({ ...filters, status: (event.target.value || undefined) as Filters['status'] })}
        >
          <option value="">Any</option>
          {filterStatuses.map((status) => (
            <option key={status}>{status}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-type`}>Type</label>
        <select
          id={`${id}-type`}
          value={filters.type ?? ''}
          onChange={(event) =>
            onChange({ ...filters, type: (event.target.value || undefined) as Filters['type'], model: undefined })
          }
        >
          <option value="">Any</option>
          {typesOf(models).map((type) => (
            <option key={type}>{type}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-model`}>Model</label>
        <select
          id={`${id}-model`}
          value={filters.model ?? ''}
          onChange={(event) => onChange({ ...filters, model: event.target.value || undefined })}
        >
          <option value="">Any</option>
          {offered.map((model) => (
            <option key={model}>{model}</option>
          ))}
        </select>
      </div>
      {mayManage && (
        <div className="field">
          <label htmlFor={`${id}-key`}>Key</label>
          <select
            id={`${id}-key`}
            value={filters.key_id ?? ''}
            onChange={(event) => onChange({ ...filters, key_id: event.target.value || undefined })}
          >
            <option value="">Any</option>
            {keys.map((key) => (
              <option key={key.id} value={key.id}>
                {key.name}
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="field">
        <label htmlFor={`${id}-from`}>From</label>
        <input
          id={`${id}-from`}
          type="date"
          value={filters.from ?? ''}
          onChange={(event) => onChange({ ...filters, from: event.target.value || undefined })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-to`}>To</label>
        <input
          id={`${id}-to`}
          type="date"
          value={filters.to ?? ''}
          onChange={(event) => onChange({ ...filters, to: event.target.value || undefined })}
        />
      </div>
    </form>
  );
}

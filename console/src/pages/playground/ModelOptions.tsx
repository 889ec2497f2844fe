// The chosen model's own options, from its catalog capabilities: aspect ratio, resolution, duration, outputs, sound
// and mesh type. A model without a capability shows no field for it.
import type { Model } from '../../catalog/use-models';
import { Field } from '../../ui/Field';
import type { Draft } from './draft';

interface Props {
  model: Model;
  draft: Draft;
  onChange: (draft: Draft) => void;
}

interface ChoiceProps {
  label: string;
  choices: readonly (string | number)[];
  value: string | number | undefined;
  onChange: (value: string | undefined) => void;
}

function Choice({ label, choices, value, onChange }: ChoiceProps) {
  return (
    <Field label={label}>
      {(control) => (
        <select {...control} value={value ?? ''} onChange={(event) => onChange(event.target.value || undefined)}>
          <option value="">Model default</option>
          {choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

const upTo = (count: number) => Array.from({ length: count }, (_, index) => index + 1);
const numberOf = (value: string | undefined) => (value === undefined ? undefined : Number(value));

export function ModelOptions({ model, draft, onChange }: Props) {
  const capabilities = model.capabilities;
  const set = (change: Partial<Draft>) => onChange({ ...draft, ...change });
  return (
    <div className="options">
      {!!capabilities.aspect_ratios?.length && (
        <Choice
          label="Aspect ratio"
          choices={capabilities.aspect_ratios}
          value={draft.aspect_ratio}
          onChange={(aspect_ratio) => set({ aspect_ratio })}
        />
      )}
      {!!capabilities.resolutions?.length && (
        <Choice
          label="Resolution"
          choices={capabilities.resolutions}
          value={draft.resolution}
          onChange={(resolution) => set({ resolution })}
        />
      )}
      {!!capabilities.durations?.length && (
        <Choice
          label="Duration (s)"
          choices={capabilities.durations}
          value={draft.duration}
          onChange={(duration) => set({ duration: numberOf(duration) })}
        />
      )}
      {(capabilities.max_outputs ?? 1) > 1 && (
        <Choice
          label="Outputs"
          choices={upTo(capabilities.max_outputs!)}
          value={draft.num_outputs}
          onChange={(outputs) => set({ num_outputs: numberOf(outputs) })}
        />
      )}
      {!!capabilities.generate_types?.length && (
        <Choice
          label="Mesh"
          choices={capabilities.generate_types}
          value={draft.generate_type}
          onChange={(type) => set({ generate_type: type as Draft['generate_type'] })}
        />
      )}
      {capabilities.supports_sound && (
        <label className="checkbox">
          <input
            type="checkbox"
            checked={draft.sound ?? false}
            onChange={(event) => set({ sound: event.target.checked || undefined })}
          />
          Generated sound
        </label>
      )}
    </div>
  );
}

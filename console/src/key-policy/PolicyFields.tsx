// The fields of a key's policy, shared by the new-key form and the OAuth consent screen: an amount in USD, the budget's
// window, and a list to choose from (models, types; none chosen: any).
import { Field } from '../ui/Field';
import { budgetWindows, type BudgetWindow } from './policy-draft';

interface FieldProps<Value> {
  label: string;
  value: Value;
  onChange: (value: Value) => void;
}

export function UsdField({ label, value, onChange }: FieldProps<string>) {
  return (
    <Field label={label}>
      {(control) => (
        <input
          {...control}
          type="number"
          min="0"
          step="0.000001"
          inputMode="decimal"
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}

export function WindowField({ label, value, onChange }: FieldProps<BudgetWindow>) {
  return (
    <Field label={label}>
      {(control) => (
        <select {...control} value={value} onChange={(event) => onChange(event.target.value as BudgetWindow)}>
          {budgetWindows.map((window) => (
            <option key={window}>{window}</option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function ChoiceList({ label, value, onChange, options }: FieldProps<string[]> & { options: string[] }) {
  return (
    <Field label={label}>
      {(control) => (
        <select
          {...control}
          multiple
          size={5}
          value={value}
          onChange={(event) => onChange([...event.target.selectedOptions].map((option) => option.value))}
        >
          {options.map((option) => (
            <option key={option}>{option}</option>
          ))}
        </select>
      )}
    </Field>
  );
}

// The fields of a key's policy, shared by the new-key form and the OAuth consent screen: an amount in USD, the budget's
// window, and a list to choose from (models, types; none chosen: any).
import { budgetWindows, type BudgetWindow } from './key-draft';

interface FieldProps<Value> {
  id: string;
  label: string;
  value: Value;
  onChange: (value: Value) => void;
}

export function UsdField({ id, label, value, onChange }: FieldProps<string>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        min="0"
        step="0.000001"
        inputMode="decimal"
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
    </div>
  );
}

export function WindowField({ id, label, value, onChange }: FieldProps<BudgetWindow>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value as BudgetWindow)}>
        {budgetWindows.map((window) => (
          <option key={window}>{window}</option>
        ))}
      </select>
    </div>
  );
}

export function ChoiceList({ id, label, value, onChange, options }: FieldProps<string[]> & { options: string[] }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        multiple
        size={5}
        value={value}
        onChange={(event) => onChange([...event.target.selectedOptions].map((option) => option.value))}
      >
        {options.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
    </div>
  );
}

// A form field as every page makes it: its label, the control, a hint and an error line, the control described by both
// (aria-describedby) and marked invalid while there is an error. The control comes from a function given the props
// that wire it: <Field label="Name">{(control) => <input {...control} type="text" />}</Field>.
import { type ReactNode, useId } from 'react';
import { ErrorLine, hasError } from './ErrorLine';

export interface ControlProps {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
}

interface Described {
  hint?: ReactNode;
  /** An Error, the API's error body or a message; announced (role="alert"). */
  error?: unknown;
  className?: string;
}

/** The ids of the hint and the error line, and the description the control (or the group) carries. */
function useDescription({ hint, error }: Described) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = hasError(error) ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return { id, hintId, errorId, describedBy };
}

function Description({ hint, error, hintId, errorId }: Described & { hintId?: string; errorId?: string }) {
  return (
    <>
      {hint && (
        <p id={hintId} className="hint muted">
          {hint}
        </p>
      )}
      <ErrorLine id={errorId} error={error} />
    </>
  );
}

interface FieldProps extends Described {
  label: ReactNode;
  /** The label read by screen readers only (a field whose group's legend already says it). */
  labelHidden?: boolean;
  children: (control: ControlProps) => ReactNode;
}

export function Field({ label, labelHidden, hint, error, className, children }: FieldProps) {
  const { id, hintId, errorId, describedBy } = useDescription({ hint, error });
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id} className={labelHidden ? 'visually-hidden' : undefined}>
        {label}
      </label>
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': errorId ? true : undefined })}
      <Description hint={hint} error={error} hintId={hintId} errorId={errorId} />
    </div>
  );
}

interface FieldSetProps extends Described {
  legend: ReactNode;
  children: ReactNode;
}

/** A group of controls (checkboxes, a URL or a file) under one legend, with the group's hint and error line. */
export function FieldSet({ legend, hint, error, className, children }: FieldSetProps) {
  const { hintId, errorId, describedBy } = useDescription({ hint, error });
  return (
    <fieldset className={className ? `field ${className}` : 'field'} aria-describedby={describedBy}>
      <legend className="label">{legend}</legend>
      {children}
      <Description hint={hint} error={error} hintId={hintId} errorId={errorId} />
    </fieldset>
  );
}

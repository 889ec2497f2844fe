// An error as one line, announced to screen readers as it appears (role="alert"): an Error, the API's error body, or
// a message. Nothing without one, so a page shows only the alerts it has.
import { errorMessage } from '../api/client';

interface Props {
  error: unknown;
  /** For a field's aria-describedby (Field sets it). */
  id?: string;
  /** In a line of buttons: a span, not a paragraph. */
  inline?: boolean;
}

/** Whether there is an error to show: a query's `null`, an unset state's `undefined`, `false` or '' is none. */
export const hasError = (error: unknown) => error !== undefined && error !== null && error !== false && error !== '';

export function ErrorLine({ error, id, inline }: Props) {
  if (!hasError(error)) return null;
  const Line = inline ? 'span' : 'p';
  return (
    <Line id={id} className="error" role="alert">
      {typeof error === 'string' ? error : errorMessage(error)}
    </Line>
  );
}

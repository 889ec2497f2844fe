// An action asked twice: the first press says what it does, the second does it; "Keep it" steps back.
import { useState } from 'react';

interface Props {
  /** The first button's text ("Revoke"). */
  label: string;
  /** What the action does, asked as a question. */
  question: string;
  /** The second button's text ("Yes, revoke"), and its text while pending. */
  confirm: string;
  pending: string;
  isPending: boolean;
  onConfirm: () => void;
}

export function ConfirmButton({ label, question, confirm, pending, isPending, onConfirm }: Props) {
  const [asked, setAsked] = useState(false);
  if (!asked)
    return (
      <button type="button" className="secondary" onClick={() => setAsked(true)}>
        {label}
      </button>
    );
  return (
    <span className="actions confirm">
      <span>{question}</span>
      <button type="button" className="danger" disabled={isPending} onClick={onConfirm}>
        {isPending ? pending : confirm}
      </button>
      <button type="button" className="secondary" onClick={() => setAsked(false)}>
        Keep it
      </button>
    </span>
  );
}

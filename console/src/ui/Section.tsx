// A card with its heading, named by it (a region, or a form, screen readers list by name).
import { type ReactNode, useId } from 'react';

interface Props {
  title: ReactNode;
  /** A heading for screen readers only (the page's own heading says it already). */
  titleHidden?: boolean;
  className?: string;
  children: ReactNode;
}

const classes = (...names: (string | undefined)[]) => names.filter(Boolean).join(' ');

export function Section({ title, titleHidden, className, children }: Props) {
  const id = useId();
  return (
    <section className={classes('card', className)} aria-labelledby={id}>
      <h2 id={id} className={titleHidden ? 'visually-hidden' : undefined}>
        {title}
      </h2>
      {children}
    </section>
  );
}

/** A card that is a form: submitting it calls `onSubmit` (the page stays). */
export function FormSection({ title, className, children, onSubmit }: Props & { onSubmit: () => void }) {
  const id = useId();
  return (
    <form
      className={classes('card form-card', className)}
      aria-labelledby={id}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      <h2 id={id}>{title}</h2>
      {children}
    </form>
  );
}

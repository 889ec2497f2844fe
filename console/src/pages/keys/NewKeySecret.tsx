// The new key's secret, shown this once, with a copy button; "Done" forgets it.
import { useState } from 'react';
import { Section } from '../../ui/Section';

export function NewKeySecret({ secret, onDone }: { secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string>();
  return (
    <Section title="Your new key" className="secret">
      <p>Copy it now: it is shown this once and cannot be read again.</p>
      <p className="mono secret-value">{secret}</p>
      <div className="actions">
        <button
          type="button"
          onClick={() =>
            navigator.clipboard.writeText(secret).then(
              () => setCopied('Copied.'),
              () => setCopied('The browser did not allow copying: select the key above.'),
            )
          }
        >
          Copy key
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Done
        </button>
        <span role="status" className="muted">
          {copied}
        </span>
      </div>
    </Section>
  );
}

// The `Prefer` request header (RFC 7240), for the one preference this API honours: `wait=N`, how many seconds the
// caller would rather be held for a task to end than poll. Other preferences and anything unreadable are ignored,
// as the RFC asks of a server; a wait longer than the longest hold is clamped to it.

/** The longest hold: long enough for most local tasks, short enough for proxies' idle timeouts. */
export const maxPreferWaitSeconds = 60;

/**
 * The applied `wait` in whole seconds, or undefined when the header asks for none (absent, 0, unreadable). Values
 * are comma-separated preferences, each `token[=value]` with optional `;` parameters; tokens are case-insensitive.
 */
export function preferredWaitSeconds(header: string | undefined): number | undefined {
  if (!header) return undefined;
  for (const preference of header.split(',')) {
    const [name, value] = (preference.split(';')[0] ?? '').split('=', 2).map((part) => part.trim());
    if (name?.toLowerCase() !== 'wait' || value === undefined) continue;
    const unquoted = value.replace(/^"(.*)"$/, '$1');
    if (!/^\d{1,9}$/.test(unquoted)) return undefined;
    const seconds = Math.min(Number(unquoted), maxPreferWaitSeconds);
    return seconds > 0 ? seconds : undefined;
  }
  return undefined;
}

/** `Preference-Applied` for a wait that was honoured. */
export const waitApplied = (seconds: number) => ({ 'Preference-Applied': `wait=${seconds}` });

// Where an OAuth authorization ends without going back to the application: an error, or the person's refusal, for a
// client whose redirect URI would leave their machine. Redirecting there unasked would make the gateway an open
// redirector for anyone who registers a client (RFC 9700 §4.11.2), so the person is told here instead.
import type { Response } from 'express';

const escaped = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** What each ending means to the person; the code itself is shown too. */
const endings: Record<string, string> = {
  access_denied: 'You refused the application’s request: it was given nothing.',
  invalid_request: 'The application’s authorization request was not valid.',
  invalid_scope: 'The application asked for permissions this gateway does not grant.',
  invalid_target: 'The application asked for access to something this gateway does not serve.',
  server_error: 'The gateway could not handle the authorization request.',
};

export function sendOAuthErrorPage(res: Response, status: number, error: string, detail?: string) {
  const meaning = endings[error] ?? 'The authorization did not complete.';
  const body = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Authorization ended</title></head>
<body>
<main>
<h1>Authorization ended</h1>
<p>${escaped(meaning)}</p>
${detail ? `<p><code>${escaped(error)}</code>: ${escaped(detail)}</p>` : `<p><code>${escaped(error)}</code></p>`}
<p>You can close this window and go back to the application.</p>
</main>
</body>
</html>
`;
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
    })
    .send(body);
}

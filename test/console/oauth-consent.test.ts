// The OAuth consent screen in a real browser against the real stack: an MCP host (registered dynamically, PKCE S256)
// sends the browser to /oauth/authorize, which sends it to /console/authorize; signing in there stays on the consent
// screen, which names the host, what it asks and where the answer goes. Allow with a budget lands on the host's
// redirect URI with a code (and its state) that /oauth/token exchanges for an access token, and the grant is listed
// on the Keys page as an OAuth grant with that budget, where revoking it refuses the host's next call; Deny (keyboard
// only) lands there with access_denied; a request that is not the gateway's shows why instead of the form.
// Screenshots go to docs/images/.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  collectPageErrors,
  launchChromium,
  newPage,
  type Page,
  seriousAccessibilityViolations,
} from '../../console/test-support/browser.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';

const screenshot = (name: string) => join(import.meta.dirname, '..', '..', 'docs', 'images', `console-${name}.png`);

const gateway = useGateway();
const developer = useFundedDeveloper(gateway);
let browser: Browser;

/** The MCP host's redirect URI: a local server that keeps the URL of each request it gets. */
let callbackServer: HttpServer;
const callbacks: URL[] = [];
let redirectUri: string;
let clientId: string;

beforeAll(async () => {
  callbackServer = createServer((req, res) => {
    callbacks.push(new URL(req.url!, redirectUri));
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
  redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
  const registered = await fetch(`${gateway.app.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test host',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  expect(registered.status, await registered.clone().text()).toBe(201);
  clientId = ((await registered.json()) as { client_id: string }).client_id;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callbackServer?.close(resolve));
});

/** An authorization request as the host makes it: its URL, and the PKCE verifier it keeps for the exchange. */
function authorization(state: string) {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${gateway.app.url}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state,
    resource: `${gateway.app.url}/mcp`,
  }).toString();
  return { url: url.href, verifier };
}

/** Opens the authorization URL (the browser ends on the console's sign-in) and signs in there with the developer's key. */
async function openConsent(page: Page, url: string): Promise<void> {
  await page.goto(url);
  expect(new URL(page.url()).pathname).toBe('/console/authorize');
  await page.getByText('An application asks to use this gateway').waitFor();
  await page.getByLabel('API key').fill(developer.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Authorize Test host', level: 1 }).waitFor();
  expect(new URL(page.url()).searchParams.get('request')).toBeTruthy();
}

/** The callback the host's redirect URI got with `state`, once it has. */
async function callbackWith(state: string): Promise<URL> {
  await expect.poll(() => callbacks.some((url) => url.searchParams.get('state') === state)).toBe(true);
  return callbacks.find((url) => url.searchParams.get('state') === state)!;
}

describe('console OAuth consent', () => {
  it('grants with the chosen budget: the host gets a code it exchanges, and the grant is on the Keys page', async () => {
    const page = await newPage(browser);
    const errors = collectPageErrors(page);
    const { url, verifier } = authorization('xyz');
    await openConsent(page, url);
    await page.getByText('generate: start and cancel generations').waitFor();
    await page.getByText(`${gateway.app.url}/mcp`).waitFor();
    await page.getByText(new URL(redirectUri).host, { exact: true }).waitFor();

    await expect(page.getByLabel('Budget (USD)').inputValue()).resolves.toBe('5');
    await page.getByLabel('Budget (USD)').fill('2.5');
    await page.getByLabel('Budget window').selectOption('week');
    await page.getByLabel('Expires').selectOption({ label: 'In 30 days' });
    await page.getByLabel('Models allowed (none chosen: any)').selectOption(['local/espeak']);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByLabel('Budget (USD)').blur();
    await page.screenshot({ path: screenshot('authorize'), fullPage: true });
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('authorize-375'), fullPage: true });

    await page.getByRole('button', { name: 'Allow' }).click();
    const callback = await callbackWith('xyz');
    const code = callback.searchParams.get('code');
    expect(code).toBeTruthy();
    expect(callback.pathname).toBe('/callback');
    expect(callback.searchParams.get('iss')).toBeTruthy();
    await page.waitForURL((at) => at.href.startsWith(redirectUri));

    const tokens = await fetch(`${gateway.app.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code!,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: clientId,
        resource: `${gateway.app.url}/mcp`,
      }),
    });
    expect(tokens.status, await tokens.clone().text()).toBe(200);
    const accessToken = ((await tokens.json()) as { access_token: string }).access_token;
    const currentKey = () =>
      fetch(`${gateway.app.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_current_key', arguments: {} },
        }),
      });
    const beforeRevoke = await currentKey();
    expect(beforeRevoke.status).toBe(200);
    expect(await beforeRevoke.text()).toContain('Test host');

    const keys = await call(gateway, 'GET', '/keys', { key: developer.key });
    const grant = keys.body.keys.find((key: { oauth_client_id: string | null }) => key.oauth_client_id === clientId);
    expect(grant).toMatchObject({
      name: 'Test host',
      scopes: ['generate', 'read'],
      policy: { budget: { amount: 2.5, window: 'week' }, models: ['local/espeak'] },
    });
    const daysLeft = (Date.parse(grant.expires_at) - Date.now()) / 86_400_000;
    expect(daysLeft).toBeGreaterThan(29.9);
    expect(daysLeft).toBeLessThanOrEqual(30);

    // The same tab, still signed in: the Keys page lists the grant, labelled, with its budget, and revocable.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${gateway.app.url}/console/keys`);
    const card = page.getByRole('listitem', { name: 'Test host' });
    await card.getByText('OAuth grant', { exact: true }).waitFor();
    await card.getByText('$0.00 spent and $0.00 reserved of $2.50 this week').waitFor();
    // Revoked there: the host's very next call is refused (the grant is read on every call, no cache).
    await card.getByRole('button', { name: 'Revoke' }).click();
    await card.getByRole('button', { name: 'Yes, revoke' }).click();
    await card.getByText(/^revoked/).waitFor();
    const afterRevoke = await currentKey();
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('denies from the keyboard: the host gets access_denied with its state, and no key is made', async () => {
    const page = await newPage(browser);
    const errors = collectPageErrors(page);
    const { url } = authorization('no-thanks');
    const keysBefore = (await call(gateway, 'GET', '/keys', { key: developer.key })).body.keys.length;
    await openConsent(page, url);
    // Budget, window, expiry, models, Allow, then Deny.
    await page.getByLabel('Budget (USD)').focus();
    for (let step = 0; step < 5; step += 1) await page.keyboard.press('Tab');
    await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Deny');
    await page.keyboard.press('Enter');
    const callback = await callbackWith('no-thanks');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('code')).toBeNull();
    expect((await call(gateway, 'GET', '/keys', { key: developer.key })).body.keys.length).toBe(keysBefore);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows why a request that is not the gateway’s (or has expired) cannot be answered, instead of the form', async () => {
    const page = await newPage(browser);
    await page.goto(`${gateway.app.url}/console/authorize?request=not-a-request`);
    await page.getByLabel('API key').fill(developer.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'This authorization request cannot be used', level: 1 }).waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/expired/);
    await expect(page.getByRole('button', { name: 'Allow' }).count()).resolves.toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.context().close();
  });
});

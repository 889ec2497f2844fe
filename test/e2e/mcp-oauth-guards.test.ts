// The OAuth authorization server's guards (issue 55): an access token speaks only for its client's grant and is signed
// with a key of its own, from configuration, never the database (point 7); a refresh token presented twice within the
// grace window answers one successor (point 11); redirect URIs of the allowed forms only, and no open redirect for an
// error or a refusal (point 16); limits per client (point 20); a consent answered once, and a grant whose code expired
// unredeemed revoked by the sweep, which clears what expired (point 23).
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { signAccessToken } from '../../src/accounts/oauth/access-tokens.ts';
import { tokenKeys } from '../../src/accounts/oauth/signing-secret.ts';
import { signWalletSession } from '../../src/accounts/wallet-sessions.ts';
import { ensureOAuthSweepSchedule, oauthSweepScheduleId } from '../../src/use-cases/temporal/oauth-sweep-schedule.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';
import { consent } from '../helpers/oauth-host.ts';

const tokenSecret = randomBytes(32).toString('hex');
const keys = tokenKeys(tokenSecret);
const gateway = useGateway(() => ({ oauth: { tokenSecret, requestsPerClient: 20 } }));
const owner = useFundedDeveloper(gateway);
const base = () => gateway.app.url;
const prisma = () => gateway.database.prisma;

const loopbackRedirect = 'http://127.0.0.1:9/oauth/callback';

async function register(redirectUris: string[]) {
  return fetch(`${base()}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Guarded host',
      redirect_uris: redirectUris,
      token_endpoint_auth_method: 'none',
    }),
  });
}

async function registered(redirectUri = loopbackRedirect): Promise<string> {
  const response = await register([redirectUri]);
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

function authorizationUrl(clientId: string, redirectUri: string, verifier: string, extra: Record<string, string> = {}) {
  const url = new URL(`${base()}/oauth/authorize`);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const fields = { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, state: 'st4te' };
  for (const [name, value] of Object.entries({ ...fields, code_challenge: challenge, code_challenge_method: 'S256' }))
    url.searchParams.set(name, value);
  for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
  return url;
}

const tokenRequest = (fields: Record<string, string>) =>
  fetch(`${base()}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });

/** A client granted through the consent screen, its code redeemed: the grant's key and its tokens. */
async function grantedClient() {
  const clientId = await registered();
  const verifier = randomBytes(32).toString('base64url');
  const { answered, redirect } = await consent(
    gateway,
    owner.key,
    authorizationUrl(clientId, loopbackRedirect, verifier),
    {
      approve: true,
    },
  );
  const tokens = await tokenRequest({
    grant_type: 'authorization_code',
    code: redirect.searchParams.get('code')!,
    code_verifier: verifier,
    redirect_uri: loopbackRedirect,
    client_id: clientId,
  });
  expect(tokens.status).toBe(200);
  const issued = (await tokens.json()) as { access_token: string; refresh_token: string };
  return { clientId, keyId: answered.key_id as string, ...issued };
}

/** The consent screen's signed request for an authorization (what /oauth/authorize sends the browser with). */
async function consentRequest(url: URL): Promise<string> {
  const authorize = await fetch(url, { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  return new URL(authorize.headers.get('location')!).searchParams.get('request')!;
}

const postMcp = (token: string) =>
  fetch(`${base()}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_current_key', arguments: {} },
    }),
  });

const accessClaims = (keyId: string, clientId: string) => ({
  keyId,
  clientId,
  scopes: ['generate', 'read'],
  resource: `${base()}/mcp`,
});

describe('access tokens (issue 55, point 7)', () => {
  it("acts only as its client's grant: a token naming another key, or another client's grant, is refused however well signed", async () => {
    const grant = await grantedClient();
    expect((await postMcp(grant.access_token)).status).toBe(200);
    const site = { issuer: base(), keys };
    // Signed with the right key, for the grant and its client: accepted (the key is the configured secret's).
    const forged = await signAccessToken(site, accessClaims(grant.keyId, grant.clientId));
    expect((await postMcp(forged.token)).status).toBe(200);

    const ownersKey = await prisma().apiKey.findFirstOrThrow({
      where: { accountId: owner.accountId, oauthClientId: null },
    });
    const forOwnersKey = await signAccessToken(site, accessClaims(ownersKey.id, grant.clientId));
    expect((await postMcp(forOwnersKey.token)).status).toBe(401);
    const otherClient = await registered();
    const forOtherClient = await signAccessToken(site, accessClaims(grant.keyId, otherClient));
    expect((await postMcp(forOtherClient.token)).status).toBe(401);
  });

  it('signs each kind of token with its own key: a wallet session never passes as an access token, nor the reverse', async () => {
    const grant = await grantedClient();
    const claims = { client_id: grant.clientId, scope: 'generate read' };
    const asAccessToken = (key: Uint8Array) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
        .setIssuer(base())
        .setSubject(grant.keyId)
        .setAudience(`${base()}/mcp`)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key);
    expect((await postMcp(await asAccessToken(keys.access_token))).status).toBe(200);
    // The same claims signed with the wallet sessions' key, or the consent requests' key: refused.
    expect((await postMcp(await asAccessToken(keys.wallet_session))).status).toBe(401);
    expect((await postMcp(await asAccessToken(keys.authorization_request))).status).toBe(401);

    // A wallet session on /mcp, with or without its prefix; an access token presented as a wallet session.
    const wallet = await signWalletSession({ issuer: base(), keys }, owner.accountId);
    expect((await postMcp(wallet.token.slice('wt_'.length))).status).toBe(401);
    const asWallet = await call(gateway, 'GET', '/account/balance', { key: `wt_${grant.access_token}` });
    expect(asWallet).toMatchObject({ status: 401, body: { message: expect.stringMatching(/wallet session/) } });
  });

  it('keeps the secret out of the database', async () => {
    const [table] = await prisma().$queryRaw<
      { name: string | null }[]
    >`SELECT to_regclass('oauth_secrets')::text AS name`;
    expect(table!.name).toBeNull();
    const columns = await prisma().$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name LIKE 'oauth%' AND data_type = 'bytea'`;
    expect(columns).toEqual([]);
  });
});

describe('refresh tokens (issue 55, point 11)', () => {
  it('answers a refresh token presented twice within the grace window with the one same successor', async () => {
    const grant = await grantedClient();
    const refresh = (refreshToken: string) =>
      tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: grant.clientId });
    const [first, second] = await Promise.all([refresh(grant.refresh_token), refresh(grant.refresh_token)]);
    const [a, b] = (await Promise.all([first.json(), second.json()])) as { refresh_token: string }[];
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(b!.refresh_token).toBe(a!.refresh_token);
    const third = (await (await refresh(grant.refresh_token)).json()) as { refresh_token: string };
    expect(third.refresh_token).toBe(a!.refresh_token);
    expect(await prisma().oAuthRefreshToken.count({ where: { apiKeyId: grant.keyId } })).toBe(2);
    // The one successor carries the grant on.
    expect((await refresh(a!.refresh_token)).status).toBe(200);
  });
});

describe('redirect URIs (issue 55, point 16)', () => {
  const allowed = [
    'https://hosts.example/oauth/callback',
    'http://127.0.0.1:33418/callback',
    'http://localhost/callback',
    'http://[::1]:8080/callback',
    'com.example.desktop:/oauth/callback',
    'cursor://anysphere.cursor-mcp/oauth/callback',
  ];
  const refused = [
    'http://hosts.example/callback',
    'myapp://oauth/callback',
    'cursor://oauth/callback',
    'vscode://some.extension/callback',
    'javascript:alert(1)',
    'data:text/html,hello',
    'file:///etc/passwd',
    'https://hosts.example/callback#fragment',
  ];

  it.each(allowed)('registers %s', async (uri) => {
    expect((await register([uri])).status).toBe(201);
  });

  it('holds a client to its application_type: web at https only, native at loopback too, nothing else', async () => {
    const as = (application_type: string, uri: string) =>
      fetch(`${base()}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Typed host', redirect_uris: [uri], application_type }),
      });
    expect((await as('web', 'https://hosts.example/callback')).status).toBe(201);
    expect((await as('native', loopbackRedirect)).status).toBe(201);
    for (const refusal of [await as('web', loopbackRedirect), await as('desktop', 'https://hosts.example/callback')]) {
      expect(refusal.status).toBe(400);
      expect(await refusal.json()).toMatchObject({ error: 'invalid_client_metadata' });
    }
  });

  it.each(refused)('refuses %s', async (uri) => {
    const response = await register([uri]);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it("shows a page for an https client's error or refusal instead of redirecting there; a loopback one is redirected", async () => {
    const remote = 'https://hosts.example/oauth/callback';
    const clientId = await registered(remote);
    const verifier = randomBytes(32).toString('base64url');
    const plain = authorizationUrl(clientId, remote, verifier, { code_challenge_method: 'plain' });
    const error = await fetch(plain, { redirect: 'manual' });
    expect(error.status).toBe(400);
    expect(error.headers.get('location')).toBeNull();
    expect(error.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await error.text()).toContain('invalid_request');

    const { answered } = await consent(gateway, owner.key, authorizationUrl(clientId, remote, verifier), {
      approve: false,
    });
    expect(answered.redirect_to).toBe(`${base()}/oauth/ended?error=access_denied`);
    const page = await fetch(answered.redirect_to, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('You refused');

    const local = await registered();
    const localError = await fetch(
      authorizationUrl(local, loopbackRedirect, verifier, { code_challenge_method: 'plain' }),
      {
        redirect: 'manual',
      },
    );
    expect(localError.status).toBe(302);
    const localAnswer = new URL(localError.headers.get('location')!).searchParams;
    expect(localAnswer.get('error')).toBe('invalid_request');
    // An error is an authorization response too: it names the issuer (RFC 9207).
    expect(localAnswer.get('iss')).toBe(base());
  });
});

describe('limits (issue 55, point 20)', () => {
  it("counts a known client's requests per client: one past its limit leaves another client on the same address its own", async () => {
    const [first, second] = [await registered(), await registered()];
    const refresh = (clientId: string) =>
      tokenRequest({ grant_type: 'refresh_token', refresh_token: 'ort_unknown', client_id: clientId });
    for (let count = 0; count < 20; count += 1) expect((await refresh(first)).status).toBe(400);
    const limited = await refresh(first);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: 'too_many_requests' });
    expect((await refresh(second)).status).toBe(400);
  });
});

describe('consent and expiry (issue 55, point 23)', () => {
  it('answers a consent request once: a second approval is refused and mints nothing', async () => {
    const clientId = await registered();
    const request = await consentRequest(authorizationUrl(clientId, loopbackRedirect, 'v'.repeat(43)));
    const answer = (approve: boolean) =>
      call(gateway, 'POST', '/oauth/consent', { key: owner.key, body: { request, approve } });
    expect((await answer(true)).status).toBe(200);
    const again = await answer(true);
    expect(again).toMatchObject({ status: 409, body: { error: 'conflict' } });
    expect(again.body.message).toMatch(/answered already/);
    expect((await answer(false)).status).toBe(409);
    expect(await prisma().apiKey.count({ where: { oauthClientId: clientId } })).toBe(1);
    expect(await prisma().oAuthCode.count({ where: { clientId } })).toBe(1);
  });

  it('revokes a grant whose code expired unredeemed; the sweep does so too and clears what expired', async () => {
    const past = new Date(Date.now() - 1000);
    const unredeemed = async () => {
      const clientId = await registered();
      const { answered } = await consent(
        gateway,
        owner.key,
        authorizationUrl(clientId, loopbackRedirect, 'v'.repeat(43)),
        {
          approve: true,
        },
      );
      await prisma().oAuthCode.updateMany({ where: { clientId }, data: { expiresAt: past } });
      return { clientId, keyId: answered.key_id as string, code: answered.redirect_to };
    };
    const keyOf = (id: string) => prisma().apiKey.findUniqueOrThrow({ where: { id } });

    // Presented after its expiry, the code is refused and its grant ends.
    const late = await unredeemed();
    const redeemed = await tokenRequest({
      grant_type: 'authorization_code',
      code: new URL(late.code).searchParams.get('code')!,
      code_verifier: 'v'.repeat(43),
      redirect_uri: loopbackRedirect,
      client_id: late.clientId,
    });
    expect(await redeemed.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await keyOf(late.keyId)).revokedAt).not.toBeNull();

    // Never presented: the sweep ends it. It also clears an expired refresh token and an unused registration.
    const forgotten = await unredeemed();
    const used = await grantedClient();
    await prisma().oAuthRefreshToken.updateMany({ where: { apiKeyId: used.keyId }, data: { expiresAt: past } });
    const dayAgo = new Date(Date.now() - 2 * 86_400_000);
    const unused = await registered();
    await prisma().oAuthClient.updateMany({
      where: { id: { in: [unused, used.clientId] } },
      data: { createdAt: dayAgo },
    });

    await ensureOAuthSweepSchedule(gateway.env.client, gateway.config);
    await gateway.env.client.schedule.getHandle(oauthSweepScheduleId).trigger();
    await expect.poll(async () => (await keyOf(forgotten.keyId)).revokedAt, { timeout: 60_000 }).not.toBeNull();
    await expect.poll(() => prisma().oAuthClient.count({ where: { id: unused } }), { timeout: 60_000 }).toBe(0);
    expect(await prisma().oAuthCode.count({ where: { clientId: { in: [late.clientId, forgotten.clientId] } } })).toBe(
      0,
    );
    expect(await prisma().oAuthRefreshToken.count({ where: { apiKeyId: used.keyId } })).toBe(0);
    // A client with a grant stays, and so does its key.
    expect(await prisma().oAuthClient.count({ where: { id: used.clientId } })).toBe(1);
    expect((await keyOf(used.keyId)).revokedAt).toBeNull();
  }, 120_000);
});

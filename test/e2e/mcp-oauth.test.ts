// OAuth 2.1 on /mcp, driven by the MCP SDK's own client OAuth (discovery, dynamic registration, PKCE, token
// exchange, refresh): a keyless call that needs an account answers 401 pointing at the Protected Resource Metadata;
// the consent (the console's call) grants a key with the chosen policy; the token then acts as that key, refreshes
// when it is refused, and stops at once when the grant is revoked under /keys. The authorization server's refusals
// (plain PKCE, another resource, a code or refresh token used twice) and the token outside /mcp are checked too.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { describe, expect, it } from 'vitest';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';
import { consent as consentWith, HostOAuth, hostRedirectUrl as redirectUrl } from '../helpers/oauth-host.ts';

const gateway = useGateway();
const owner = useFundedDeveloper(gateway);

const consent = (authorizationUrl: URL, answer: Record<string, unknown>) =>
  consentWith(gateway, owner.key, authorizationUrl, answer);

const mcpUrl = () => new URL(`${gateway.app.url}/mcp`);

async function connectWith(host: HostOAuth) {
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: host });
  const client = new Client({ name: 'oauth-test-host', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** A host that went through the whole flow: registered, consented with `policy`, holding tokens. */
async function authorizedHost(policy: Record<string, unknown>) {
  const host = new HostOAuth();
  const first = await connectWith(host);
  await expect(first.client.callTool({ name: 'get_current_key', arguments: {} })).rejects.toThrow(UnauthorizedError);
  await first.client.close();
  const { shown, answered, redirect } = await consent(host.authorizationUrl!, { approve: true, policy });
  await first.transport.finishAuth(redirect.searchParams.get('code')!);
  return { host, shown, answered, redirect };
}

const postMcp = (body: unknown, authorization?: string) =>
  fetch(mcpUrl(), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization && { authorization }),
    },
    body: JSON.stringify(body),
  });

const toolCall = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });

describe('OAuth on /mcp', () => {
  it('publishes Protected Resource Metadata at both forms and the authorization server metadata (S256 only)', async () => {
    const base = gateway.app.url;
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const resource = await (await fetch(`${base}${path}`)).json();
      expect(resource).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base] });
    }
    const server = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    expect(server).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['generate', 'read'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('answers 401 with resource_metadata to a keyless call that needs an account, and keyless calls that do not still work', async () => {
    const refused = await postMcp(toolCall('get_balance'));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${gateway.app.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(await refused.json()).toMatchObject({ error: 'unauthorized' });
    const tasks = await postMcp({ jsonrpc: '2.0', id: 2, method: 'tasks/list', params: {} });
    expect(tasks.status).toBe(401);

    const models = await postMcp(toolCall('list_models'));
    expect(models.status).toBe(200);
    expect(await models.text()).toContain('local/lanczos');
  });

  it('grants a key with the chosen policy; the token acts as it, refreshes, and stops when the grant is revoked', async () => {
    const policy = { budget: { amount: 0.5, window: 'day' }, models: ['local/lanczos'] };
    const { host, shown, answered, redirect } = await authorizedHost(policy);
    expect(shown).toMatchObject({
      client: { name: 'Test host' },
      redirect_uri: redirectUrl,
      scopes: ['generate', 'read'],
      resource: `${gateway.app.url}/mcp`,
    });
    expect(redirect.searchParams.get('iss')).toBe(gateway.app.url);
    expect(host.saved).toMatchObject({ token_type: 'Bearer', scope: 'generate read', expires_in: 3600 });

    // The grant is a key of the owner's account, listed with its client.
    const keys = await call(gateway, 'GET', '/keys', { key: owner.key });
    const grant = keys.body.keys.find((key: { id: string }) => key.id === answered.key_id);
    expect(grant).toMatchObject({
      name: 'Test host',
      oauth_client_id: host.information!.client_id,
      scopes: ['generate', 'read'],
      policy: { budget: { amount: 0.5, window: 'day' }, models: ['local/lanczos'] },
    });

    const { client } = await connectWith(host);
    const current = await client.callTool({ name: 'get_current_key', arguments: {} });
    expect(current.isError).toBeFalsy();
    expect(current.structuredContent).toMatchObject({ id: answered.key_id, remaining: 0.5 });
    const balance = await client.callTool({ name: 'get_balance', arguments: {} });
    expect(balance.structuredContent).toMatchObject({ balance: '5.00' });
    await client.close();

    // A refused access token is refreshed by the client on its own, with a new refresh token (rotation).
    const firstRefresh = host.saved!.refresh_token;
    host.saved = { ...host.saved!, access_token: 'e30.e30.forged' };
    const refreshed = await connectWith(host);
    const again = await refreshed.client.callTool({ name: 'get_current_key', arguments: {} });
    expect(again.structuredContent).toMatchObject({ id: answered.key_id });
    expect(host.saved.refresh_token).not.toBe(firstRefresh);
    await refreshed.client.close();

    // The access token is for /mcp: the REST API refuses it.
    const rest = await call(gateway, 'GET', '/account/balance', { key: host.saved.access_token });
    expect(rest.status).toBe(401);
    expect(rest.body.message).toMatch(/MCP endpoint/);

    // Revoked under Keys: the very next call is refused, and the refresh token no longer helps.
    const revoked = await call(gateway, 'DELETE', `/keys/${answered.key_id}`, { key: owner.key });
    expect(revoked.status).toBe(200);
    const afterRevoke = await postMcp(toolCall('get_current_key'), `Bearer ${host.saved.access_token}`);
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", .*resource_metadata=/);
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: host.saved.refresh_token!,
      client_id: host.information!.client_id,
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('runs generate within the consented budget, and refuses past it as the key would', async () => {
    // "Hello." costs 0.000006 on local/espeak: the budget holds one such task, not two.
    const { host } = await authorizedHost({ budget: { amount: 0.00001, window: 'day' }, models: ['local/espeak'] });
    const { client } = await connectWith(host);
    const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello.' };
    const first = await client.callTool(
      { name: 'generate', arguments: { ...speech, idempotency_key: 'oauth-speech-1', wait_seconds: 60 } },
      undefined,
      { timeout: 120_000 },
    );
    expect(first.structuredContent).toMatchObject({ status: 'completed', model: 'local/espeak' });
    const second = await client.callTool({ name: 'generate', arguments: speech });
    expect(second.structuredContent).toMatchObject({ error: 'budget_exceeded', limit: 0.00001, spent: 0.000006 });
    await client.close();
  }, 150_000);

  it('redirects a refusal with access_denied, and a code or refresh token used twice revokes the grant', async () => {
    const host = new HostOAuth();
    const first = await connectWith(host);
    await expect(first.client.callTool({ name: 'get_balance', arguments: {} })).rejects.toThrow(UnauthorizedError);
    await first.client.close();
    const denied = await consent(host.authorizationUrl!, { approve: false });
    expect(denied.redirect.searchParams.get('error')).toBe('access_denied');
    expect(denied.answered.key_id).toBeNull();

    // The same request granted (within its ten minutes); its code redeemed by hand, then again.
    const granted = await consent(host.authorizationUrl!, { approve: true });
    const code = granted.redirect.searchParams.get('code')!;
    const exchange = () =>
      tokenRequest({
        grant_type: 'authorization_code',
        code,
        code_verifier: host.verifier!,
        redirect_uri: redirectUrl,
        client_id: host.information!.client_id,
        resource: `${gateway.app.url}/mcp`,
      });
    const tokens = await exchange();
    expect(tokens.status).toBe(200);
    const issued = (await tokens.json()) as OAuthTokens;
    const replay = await exchange();
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    const afterReplay = await postMcp(toolCall('get_balance'), `Bearer ${issued.access_token}`);
    expect(afterReplay.status).toBe(401);
    const key = await call(gateway, 'GET', `/keys/${granted.answered.key_id}`, { key: owner.key });
    expect(key.body.revoked_at).not.toBeNull();
  });

  it('narrows a refreshed token to the scopes asked, leaves a refused refresh usable, and answers concurrent refreshes', async () => {
    const { host } = await authorizedHost({});
    const clientId = host.information!.client_id;
    const refresh = (refreshToken: string, scope?: string) =>
      tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: clientId,
        ...(scope && { scope }),
      });
    // Asking for more than the grant holds is invalid_scope, and the refresh token stays good.
    const wider = await refresh(host.saved!.refresh_token!, 'generate read keys');
    expect(wider.status).toBe(400);
    expect(await wider.json()).toMatchObject({ error: 'invalid_scope' });

    // Two calls refreshing with the same token at once both get tokens, and the grant stands.
    const [first, second] = await Promise.all([
      refresh(host.saved!.refresh_token!, 'read'),
      refresh(host.saved!.refresh_token!, 'read'),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const narrowed = (await first.json()) as OAuthTokens;
    expect(narrowed.scope).toBe('read');

    // The narrowed token reads but may not generate.
    const reads = await postMcp(toolCall('get_current_key'), `Bearer ${narrowed.access_token}`);
    expect(reads.status).toBe(200);
    const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello.' };
    const generates = await postMcp(
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'generate', arguments: speech } },
      `Bearer ${narrowed.access_token}`,
    );
    expect(await generates.text()).toContain('scope_required');
    // Its refresh token keeps the grant's scopes.
    const next = (await (await refresh(narrowed.refresh_token!)).json()) as OAuthTokens;
    expect(next.scope).toBe('generate read');
  });

  it('refuses a registration with a plain-http redirect off the loopback, or a NUL in its metadata', async () => {
    const register = (metadata: Record<string, unknown>) =>
      fetch(`${gateway.app.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token_endpoint_auth_method: 'none', ...metadata }),
      });
    const remote = await register({ client_name: 'remote', redirect_uris: ['http://hosts.example/callback'] });
    expect(remote.status).toBe(400);
    expect(await remote.json()).toMatchObject({ error: 'invalid_client_metadata' });
    const nul = await register({ client_name: 'a\u0000b', redirect_uris: [redirectUrl] });
    expect(nul.status).toBe(400);
    const app = await register({ client_name: 'desktop', redirect_uris: ['com.example.desktop:/oauth/callback'] });
    expect(app.status).toBe(201);
    const bareScheme = await register({ client_name: 'desktop', redirect_uris: ['desktop://oauth/callback'] });
    expect(bareScheme.status).toBe(400);
  });

  it('refuses plain PKCE and a token for another resource', async () => {
    const host = new HostOAuth();
    const first = await connectWith(host);
    await expect(first.client.callTool({ name: 'get_balance', arguments: {} })).rejects.toThrow(UnauthorizedError);
    await first.client.close();
    const plain = new URL(host.authorizationUrl!);
    plain.searchParams.set('code_challenge_method', 'plain');
    const refusedPlain = await fetch(plain, { redirect: 'manual' });
    expect(new URL(refusedPlain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');

    const elsewhere = new URL(host.authorizationUrl!);
    elsewhere.searchParams.set('resource', 'https://other.example/mcp');
    const refusedTarget = await fetch(elsewhere, { redirect: 'manual' });
    expect(new URL(refusedTarget.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });
});

function tokenRequest(fields: Record<string, string>) {
  return fetch(`${gateway.app.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
}

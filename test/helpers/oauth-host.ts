// An MCP host's side of OAuth for tests: the state the SDK's client asks a host to keep (the authorization URL kept
// instead of opened in a browser), and the consent screen's two calls made with an account's key.
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { expect } from 'vitest';
import { call, type Server } from './http.ts';

export const hostRedirectUrl = 'http://127.0.0.1:9/oauth/callback';

export class HostOAuth implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;
  readonly redirectUrl = hostRedirectUrl;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'Test host',
    redirect_uris: [hostRedirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  /** A Client ID Metadata Document's URL: the SDK then uses it as the client id instead of registering. */
  constructor(readonly clientMetadataUrl?: string) {}
  clientInformation = () => this.information;
  saveClientInformation = (information: OAuthClientInformationMixed) => void (this.information = information);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier!;
}

/** The consent screen's work: the request /oauth/authorize sent the browser with, answered with `key`. */
export async function consent(server: Server, key: string, authorizationUrl: URL, answer: Record<string, unknown>) {
  const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(authorize.status, await authorize.clone().text()).toBe(302);
  const consentPage = new URL(authorize.headers.get('location')!);
  expect(consentPage.pathname).toBe('/console/authorize');
  const request = consentPage.searchParams.get('request')!;
  const shown = await call(server, 'GET', `/oauth/consent?request=${encodeURIComponent(request)}`, { key });
  expect(shown.status, JSON.stringify(shown.body)).toBe(200);
  const answered = await call(server, 'POST', '/oauth/consent', { key, body: { request, ...answer } });
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  return { shown: shown.body, answered: answered.body, redirect: new URL(answered.body.redirect_to) };
}

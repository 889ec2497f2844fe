// A call of an endpoint, whatever carried it: the request as a plain value (its parts, its headers, the caller's
// address, how it is authenticated, when it ends) that a transport's adapter builds: Express for the REST routes
// (express-adapter.ts), MCP for the tools (mcp/tool-calls.ts). Endpoints read nothing else of the transport.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Principal } from '../accounts/api-keys.ts';
import type { AuthRequirement } from './auth.ts';

/** A body an endpoint reads itself (`rawBody`): the request's bytes, unread. */
export type BodyStream = Readable & {
  /** Whether the whole body arrived (false once the caller dropped the connection before its end). */
  readonly complete: boolean;
};

/**
 * What outlasts one endpoint run: the transport's exchange with its caller (an HTTP request; a POST /mcp and every
 * endpoint its tools run). A slot held or a call counted once stays taken for the whole exchange.
 */
export interface Exchange {
  /** Aborts when the caller goes (its connection closed) or the server starts shutting down. */
  signal: AbortSignal;
  /** Aborts when the server starts shutting down; absent where no shutdown gate runs. */
  shutdown?: AbortSignal;
  /** Runs `release` once the exchange is over (at once if it is). */
  onEnd(release: () => void): void;
  /** The once-per-exchange steps already taken: `long-lived` (a slot held), `keyless-counted` (a call counted). */
  taken: Set<'long-lived' | 'keyless-counted'>;
}

export interface Call {
  /** Every header as the endpoint sees it, by name (node's lower-cased names for HTTP). */
  headers: IncomingHttpHeaders;
  body: unknown;
  query: unknown;
  params: unknown;
  /** Whether a body came (for an endpoint that requires one). */
  hasBody: boolean;
  /** The body unread, for an endpoint that reads its own (`rawBody`); absent on transports that carry none. */
  bodyStream?: BodyStream;
  /** Content negotiation: the best of `types` the caller accepts, false for none. */
  accepts(types: string[]): string | false;
  /** The caller's network address (as TRUST_PROXY has it). */
  address: string;
  /** The base URL of this call's links (public-origin.ts): PUBLIC_BASE_URL, or the loopback address it came to. */
  base: string;
  /** Who the call's credentials name, as the transport takes them (MCP also takes its OAuth access tokens). */
  authenticate(requirement: Exclude<AuthRequirement, 'none'>): Promise<Principal>;
  /**
   * Headers every answer to the call carries, refusals included (the rate limits a step counted it against); the
   * adapter sends them where its transport has headers.
   */
  answerHeaders: Record<string, string>;
  exchange: Exchange;
}

/** A header's value, by its name in any case: several values joined as HTTP joins them. */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

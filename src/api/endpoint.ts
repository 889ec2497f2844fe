// An endpoint is declared once: its zod schemas validate the request and the response, feed the OpenAPI
// document, and the same declaration serves every transport: a handler takes a call (call.ts) and answers a result or
// throws a domain error; the Express routes (express-adapter.ts) and the MCP tools (mcp/) are adapters of it.
// Routes stay thin: parse, call, map.
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { Catalog } from '../catalog/catalog.ts';
import type { Config } from '../config/config.ts';
import { paymentMethods, type PaymentMethods } from '../payments/methods/registered.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { Principal } from '../accounts/api-keys.ts';
import type { EndedTasks } from '../generations/ended-tasks.ts';
import type { Storage } from '../storage/storage.ts';
import type { TemporalDeps } from '../use-cases/temporal/generation-workflows.ts';
import type { StreamedEvent } from '../use-cases/generations/events.ts';
import type { TaskEventFeed } from '../generations/events/event-feed.ts';
import type { Signers } from '../payments/receipts/receipts.ts';
import type { Authenticator, AuthRequirement } from './auth.ts';
import type { OAuthSite } from './oauth/oauth-site.ts';
import { ApiError, type ErrorCode, validationError } from './errors.ts';
import type { PaymentServices } from '../payments/methods/registered.ts';
import type { RateLimitBucket, RateLimiter } from '../accounts/rate-limiter.ts';
import { enforceKeyRateLimit, enforceRateLimit, keylessCaller } from './rate-limit.ts';
import { type KeyScope, scopeRequired } from '../accounts/key-policy.ts';
import type { LongLivedSlots } from './long-lived.ts';
import { publicBaseUrl } from '../config/config.ts';
import type { Call } from './call.ts';
import { headerOf } from './call.ts';
import { relinked, relinkedEvents } from './stored-links.ts';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** What handlers may use: the database, the configuration, and how callers are authenticated. */
export interface ApiContext {
  prisma: PrismaClient;
  config: Config;
  catalog: Catalog;
  temporal: TemporalDeps;
  authenticate: Authenticator;
  /** The ways to pay (registered.ts's, or a test's): which one a request's credential names, and its 402. */
  payments: PaymentMethods;
  /** Verifies and settles payments (the registered methods' services); made on first use. */
  facilitator: PaymentServices['facilitator'];
  /** Sign offers and receipts (x402's offer-receipt extension), each with its own key the DID document publishes. */
  signers: Signers;
  /** Counts calls with a key against their account's limits. */
  rateLimiter: RateLimiter;
  /** Where outputs and uploads are stored. */
  storage: Storage;
  /** Ended tasks already read (GET /generations/{id} of pollers): answered without the database. */
  endedTasks: EndedTasks;
  /** This process's one LISTEN connection, shared by its open event streams. */
  taskEvents: TaskEventFeed;
  /** The slots of requests held open (event streams, waits), by account, address and process. */
  longLived: LongLivedSlots;
  /** OAuth on /mcp: the issuer, the resource and the token secret. */
  oauth: OAuthSite;
}

export interface HandlerInput<B, Q, P, H = unknown> {
  body: B;
  query: Q;
  params: P;
  /** The request headers the endpoint declares (`request.headers`), validated; absent ones are undefined. */
  headers: H;
  /** The authenticated caller; endpoints with `auth: 'none'` get none. */
  principal: Principal;
  ctx: ApiContext;
  /** The call as its transport gave it: every header, content negotiation, the caller's address, when it ends. */
  call: Call;
  /** The base URL of this request's links (public-origin.ts): PUBLIC_BASE_URL, or the loopback address it came to. */
  base: string;
}

export interface HandlerResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** An event stream's events (`success.eventStream`): written as text/event-stream, which ends with them. */
  events?: AsyncIterable<StreamedEvent> | Iterable<StreamedEvent>;
  /** The body as CSV (`success.csv`, asked for with `Accept: text/csv`): sent instead of `body`, which is still checked. */
  csv?: string;
}

/**
 * What answers a call without a key or a payment whose input is refused: it throws its own answer (a 402 priced for an
 * example request, src/api/discovery/payment-probe.ts), or the refusal where it has none.
 */
export type PaymentProbe = (
  refusal: unknown,
  at: { endpoint: Endpoint; ctx: ApiContext; call: Call },
) => Promise<never>;

export interface HeaderDoc {
  description: string;
  schema: { type: 'string' | 'boolean' | 'integer' };
}

export interface Endpoint<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  H extends z.ZodObject = z.ZodObject,
> {
  method: HttpMethod;
  /** OpenAPI form, relative to /api/v1: `/generations/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** `any_or_keyless_payment`: appended to the description where the server takes a payment without an API key. */
  keylessPaymentDescription?: string;
  tags: string[];
  auth: AuthRequirement;
  deprecated?: boolean;
  /** `headers` keys are the headers' names as documented (`Idempotency-Key`); each value is optional or not. */
  request?: { body?: B; query?: Q; params?: P; headers?: H };
  /** A body the handler reads itself (not JSON): the media types the OpenAPI document lists for it. */
  rawBody?: { contentTypes: string[] };
  success: {
    status: number;
    description: string;
    schema: z.ZodType;
    headers?: Record<string, HeaderDoc>;
    /**
     * Another success status the handler may answer (a cancel still under way: 202), with the same body unless
     * `schema` names another (a created task that ended within `Prefer: wait`: the whole task).
     */
    alternative?: {
      status: number;
      description: string;
      /** The body, when not the usual one; `null`: none (204). */
      schema?: z.ZodType | null;
      headers?: Record<string, HeaderDoc>;
    };
    /** The success is a text/event-stream whose events `schema` describes one by one (OpenAPI 3.1's reading). */
    eventStream?: true;
    /** The success may also be answered as text/csv (content negotiation on `Accept`). */
    csv?: true;
  };
  /** Error codes this endpoint answers besides the ones implied by its shape (validation, auth, internal). */
  errors?: ErrorCode[];
  /** Which limit a call with a key counts against (default `reads`); calls without a key are not counted. */
  rateLimit?: RateLimitBucket;
  /** The scope the calling key needs (default: `read` for a GET, `generate` otherwise). */
  scope?: KeyScope;
  /** The account's own settings (its webhook, its secret): a key with a policy is refused 403 `forbidden`. */
  accountWide?: true;
  /** The code of a body that fails validation, when the spec names one (default `validation_error`). */
  validationErrorCode?: ErrorCode;
  /** Set while the endpoint's issue has not landed: it answers 501 and its description says so. */
  pendingUntil?: string;
  handle?: (
    input: HandlerInput<z.infer<B>, z.infer<Q>, z.infer<P>, z.infer<H>>,
  ) => Promise<HandlerResult> | HandlerResult;
  /** `any_or_keyless_payment`, where taken: a call without an API key, paid (or to be paid) by a payment method. */
  handleUnpaid?: (
    input: Omit<HandlerInput<z.infer<B>, z.infer<Q>, z.infer<P>, z.infer<H>>, 'principal'>,
  ) => Promise<HandlerResult> | HandlerResult;
  /** With `handleUnpaid`: x402's Bazaar lists only an endpoint whose paymentless probe, whatever its body, gets a 402. */
  paymentProbe?: PaymentProbe;
}

/** Identity with inference, so a handler sees its parsed body, query and params typed. */
export function defineEndpoint<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  H extends z.ZodObject = z.ZodObject,
>(endpoint: Endpoint<B, Q, P, H>): Endpoint {
  return endpoint as unknown as Endpoint;
}

/** Error codes an endpoint can answer: the declared ones plus those its shape implies. */
export function endpointErrorCodes(endpoint: Endpoint): ErrorCode[] {
  const codes = new Set<ErrorCode>(endpoint.errors ?? []);
  const { request } = endpoint;
  if (request?.body || request?.query || request?.params || request?.headers) codes.add('validation_error');
  if (endpoint.validationErrorCode) codes.add(endpoint.validationErrorCode);
  if (endpoint.request?.body) codes.add('invalid_json').add('payload_too_large').add('unsupported_media_type');
  if (endpoint.rawBody) codes.add('validation_error').add('payload_too_large');
  // An API key is looked up in the database: while it is down, the answer is 503.
  if (endpoint.auth !== 'none')
    codes.add('unauthorized').add('service_unavailable').add('rate_limited').add('scope_required');
  if (endpoint.auth === 'agent' || endpoint.auth === 'developer' || endpoint.accountWide) codes.add('forbidden');
  if (publicWithLimit(endpoint)) codes.add('rate_limited');
  if (endpoint.pendingUntil) codes.add('not_implemented');
  codes.add('internal_error');
  return [...codes];
}

/** A sub-key limited by a policy acts on its own tasks, never on what every key of its account shares. */
const policyKeyRefused = () =>
  new ApiError(
    'forbidden',
    "A key with a policy cannot read or change the account's webhook or its secret: use a key without a policy.",
  );

/** What a key must be allowed to do to call the endpoint. */
export const scopeOf = (endpoint: Endpoint): KeyScope =>
  endpoint.scope ?? (endpoint.method === 'get' ? 'read' : 'generate');

function parsePart<S extends z.ZodType>(
  schema: S | undefined,
  value: unknown,
  where: 'body' | 'query' | 'path' | 'header',
  code?: ErrorCode,
): unknown {
  if (!schema) return value;
  const parsed = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (!parsed.success) throw validationError(parsed.error, where, code);
  return parsed.data;
}

/** The declared headers of a call, by their declared names (matched case-insensitively, as HTTP does). */
function declaredHeaders(schema: z.ZodObject | undefined, headers: IncomingHttpHeaders): Record<string, unknown> {
  if (!schema) return {};
  return Object.fromEntries(Object.keys(schema.shape).map((name) => [name, headerOf(headers, name)]));
}

export function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** An endpoint a caller without an API key may pay for instead, where this server takes such payments (x402 on). */
export const takesKeylessPayment = (endpoint: Endpoint, config: Config, payments: PaymentMethods = paymentMethods) =>
  endpoint.auth === 'any_or_keyless_payment' && endpoint.handleUnpaid !== undefined && payments.takesKeyless(config);

/** A call to an endpoint that takes a payment instead of an API key, whose credential (or none) is not a key. */
export const paysWithoutKey = (endpoint: Endpoint, ctx: ApiContext, call: Pick<Call, 'headers'>) =>
  takesKeylessPayment(endpoint, ctx.config, ctx.payments) && ctx.payments.paysWithoutKey(ctx.config, call.headers);

/**
 * Calls without a key that count against their network: a public endpoint that names a limit (a wallet's sign-in) and
 * a call paying instead of a key. Other public endpoints (the catalog, registration's own cap) are not counted.
 */
export const countsKeylessCall = (endpoint: Endpoint, ctx: ApiContext, call: Pick<Call, 'headers'>) =>
  publicWithLimit(endpoint) || paysWithoutKey(endpoint, ctx, call);

export const publicWithLimit = (endpoint: Endpoint) => endpoint.auth === 'none' && endpoint.rateLimit !== undefined;

/**
 * Counts a call without a key once, before anything else, however malformed: refusing it, or pricing a probe's example,
 * is work that must not come free. Its body refused by the JSON parser, it is counted where that refusal is answered.
 */
export async function countKeylessCall(endpoint: Endpoint, ctx: ApiContext, call: Call): Promise<void> {
  if (!countsKeylessCall(endpoint, ctx, call) || call.exchange.taken.has('keyless-counted')) return;
  call.exchange.taken.add('keyless-counted');
  const caller = keylessCaller(call.address);
  await enforceRateLimit(ctx.rateLimiter, endpoint.rateLimit ?? 'reads', caller, call.answerHeaders);
}

export type EndpointAnswer = Required<Omit<HandlerResult, 'events' | 'csv'>> & Pick<HandlerResult, 'events' | 'csv'>;

/**
 * Runs an endpoint on a call, whichever transport made it (authentication, validation, rate limit, handler, response
 * check): its answer, or the refusal thrown.
 */
export function executeEndpoint(endpoint: Endpoint, ctx: ApiContext, call: Call): Promise<EndpointAnswer> {
  const unpaid = paysWithoutKey(endpoint, ctx, call);
  const answer = executeParts(endpoint, ctx, call, unpaid);
  const probe = unpaid && endpoint.paymentProbe;
  return probe ? answer.catch((refusal: unknown) => probe(refusal, { endpoint, ctx, call })) : answer;
}

async function executeParts(endpoint: Endpoint, ctx: ApiContext, call: Call, unpaid: boolean): Promise<EndpointAnswer> {
  // Who is calling comes first: an anonymous caller learns nothing from validation messages.
  const principal =
    endpoint.auth === 'none' || unpaid ? (undefined as unknown as Principal) : await call.authenticate(endpoint.auth);
  const scope = scopeOf(endpoint);
  const held = principal?.apiKey?.scopes ?? principal?.scopes;
  if (held && !held.includes(scope)) throw scopeRequired(scope);
  if (endpoint.accountWide && principal?.apiKey?.policy) throw policyKeyRefused();
  if (!principal) await countKeylessCall(endpoint, ctx, call);
  if (endpoint.request?.body && !call.hasBody) {
    throw new ApiError(
      endpoint.validationErrorCode ?? 'validation_error',
      'Invalid body: body: a JSON object is required.',
    );
  }
  const { request } = endpoint;
  const input = {
    body: parsePart(request?.body, call.body, 'body', endpoint.validationErrorCode),
    query: parsePart(request?.query, call.query, 'query'),
    params: parsePart(request?.params, call.params, 'path'),
    headers: parsePart(request?.headers, declaredHeaders(request?.headers, call.headers), 'header') as Record<
      string,
      unknown
    >,
    principal,
    ctx,
    call,
    base: call.base,
  };
  // A call with a key is counted once the request is valid (a malformed one costs nothing to refuse), before any work.
  if (principal) {
    const caller = { account: principal.account, label: 'account' as const };
    await enforceRateLimit(ctx.rateLimiter, endpoint.rateLimit ?? 'reads', caller, call.answerHeaders);
  }
  if (principal?.apiKey && endpoint.rateLimit === 'admissions')
    await enforceKeyRateLimit(ctx.rateLimiter, principal.apiKey, call.answerHeaders);
  if (!endpoint.handle) {
    throw new ApiError(
      'not_implemented',
      `${endpoint.method.toUpperCase()} /api/v1${endpoint.path} is not implemented yet; it lands with ${endpoint.pendingUntil ?? 'a later release'}.`,
    );
  }
  const result = unpaid && endpoint.handleUnpaid ? await endpoint.handleUnpaid(input) : await endpoint.handle(input);
  // The response schema is the contract we publish: a body that breaks it is our bug, never the caller's.
  const { schema: usual, alternative } = endpoint.success;
  const alternate = alternative && result.status === alternative.status;
  const schema = alternate && alternative.schema !== undefined ? alternative.schema : usual;
  const checked = result.events || !schema ? { success: true as const } : schema.safeParse(result.body);
  if (!checked.success) {
    throw new Error(`Response of ${endpoint.operationId} breaks its schema: ${checked.error.message}`);
  }
  const answer = { status: result.status ?? endpoint.success.status, body: result.body, headers: result.headers ?? {} };
  const stored = publicBaseUrl(ctx.config.server);
  if (input.base === stored)
    return {
      ...answer,
      ...(result.events && { events: result.events }),
      ...(result.csv !== undefined && { csv: result.csv }),
    };
  const [from, to] = [`${stored}/files/`, `${input.base}/files/`];
  return {
    ...answer,
    body: relinked(answer.body, from, to),
    ...(result.events && { events: relinkedEvents(result.events, from, to) }),
    ...(result.csv !== undefined && { csv: result.csv }),
  };
}

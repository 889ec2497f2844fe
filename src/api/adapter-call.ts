// An adapter's exchange with its caller, for the faces that run the endpoints on requests of their own making (MCP's
// tools, the OpenAI-shaped routes): one HTTP request, whose credential, address and end every endpoint it runs shares,
// and each endpoint run as a call (call.ts) made of the request the adapter built. Headers an endpoint sets are not
// sent: the adapter answers in its own shape.
import type { IncomingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { CredentialOptions } from './auth.ts';
import type { BodyStream, Call, Exchange } from './call.ts';
import { callerAddress } from './client-address.ts';
import { type ApiContext, type Endpoint, executeEndpoint } from './endpoint.ts';
import { httpExchange } from './express-adapter.ts';
import { publicBase } from './public-origin.ts';

/** An endpoint's request as an adapter makes it: its parts, and its headers by their declared names. */
export interface EndpointRequest {
  body?: unknown;
  query?: unknown;
  params?: unknown;
  headers?: Record<string, string | undefined>;
  hasBody?: boolean;
  /** A body the endpoint reads itself (an upload's bytes), where the adapter has one. */
  bodyStream?: BodyStream;
}

/** One HTTP request of an adapter, which every endpoint it runs runs in. */
export interface AdapterExchange {
  endpoints: Map<string, Endpoint>;
  ctx: ApiContext;
  /** The request's own headers: its credential (and an x402 payment where the client sent one as a header). */
  headers: IncomingHttpHeaders;
  address: string;
  base: string;
  exchange: Exchange;
  /** Which credentials the face takes besides API keys and task tokens (MCP: its OAuth access tokens). */
  credentials: CredentialOptions;
  log: Logger;
}

export function adapterExchange(
  endpoints: Map<string, Endpoint>,
  ctx: ApiContext,
  req: Request,
  res: Response,
  credentials: CredentialOptions = {},
): AdapterExchange {
  return {
    endpoints,
    ctx,
    headers: req.headers,
    address: callerAddress(req),
    base: publicBase(ctx.config.server, req),
    exchange: httpExchange(res),
    credentials,
    log: req.log,
  };
}

/**
 * An endpoint's call from an adapter's request, with `credentials` (the request's headers, or others: a payment from
 * MCP's `_meta`, a task's token). The headers the endpoint declares come from the adapter's request only.
 */
export function endpointCall(
  adapter: AdapterExchange,
  endpoint: Endpoint,
  request: EndpointRequest,
  credentials: IncomingHttpHeaders = adapter.headers,
): Call {
  const declared = new Set(Object.keys(endpoint.request?.headers?.shape ?? {}).map((name) => name.toLowerCase()));
  const headers: IncomingHttpHeaders = Object.fromEntries(
    Object.entries(credentials).filter(([name]) => !declared.has(name.toLowerCase())),
  );
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  return {
    headers,
    body: request.body,
    query: request.query ?? {},
    params: request.params ?? {},
    hasBody: request.hasBody ?? false,
    ...(request.bodyStream ? { bodyStream: request.bodyStream } : {}),
    // The adapter's answer is JSON: whatever the endpoint offers besides (CSV) is not asked for.
    accepts: (types) => types[0] ?? false,
    address: adapter.address,
    base: adapter.base,
    authenticate: (requirement) => adapter.ctx.authenticate(headers, requirement, adapter.credentials),
    answerHeaders: {},
    exchange: adapter.exchange,
  };
}

/** Runs an endpoint (by operationId) on the adapter's request. */
export function run(
  adapter: AdapterExchange,
  operationId: string,
  request: EndpointRequest,
  credentials: IncomingHttpHeaders = adapter.headers,
) {
  const endpoint = adapter.endpoints.get(operationId);
  if (!endpoint) throw new Error(`no endpoint ${operationId}`);
  return executeEndpoint(endpoint, adapter.ctx, endpointCall(adapter, endpoint, request, credentials));
}

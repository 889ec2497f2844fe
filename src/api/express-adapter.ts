// The REST routes: each endpoint mounted on Express, an HTTP request made a call (call.ts) and its answer (or refusal)
// made the HTTP response. The one place an endpoint meets Express's request and response.
import type { NextFunction, Request, Response, Router } from 'express';
import type { Call, Exchange } from './call.ts';
import { callerAddress } from './client-address.ts';
import {
  type ApiContext,
  countKeylessCall,
  countsKeylessCall,
  type Endpoint,
  executeEndpoint,
  hasBody,
  paysWithoutKey,
  publicWithLimit,
  takesKeylessPayment,
} from './endpoint.ts';
import { ApiError } from './errors.ts';
import { writeEventStream } from './events/sse.ts';
import { publicBase } from './public-origin.ts';
import { hangUpSignal, shutdownSignal } from './shutdown-gate.ts';

export const toExpressPath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, ':$1');

/**
 * The HTTP exchange of a response, one however often asked for (the route, then its refusal's handler): it ends when
 * the response closes (the answer sent, or the caller gone).
 */
export function httpExchange(res: Response): Exchange {
  const known = res.locals.exchange as Exchange | undefined;
  if (known) return known;
  let signal: AbortSignal | undefined;
  const exchange: Exchange = {
    // Made when first asked for: most calls never wait on it.
    get signal() {
      return (signal ??= hangUpSignal(res));
    },
    shutdown: shutdownSignal(res),
    onEnd(release) {
      res.once('close', release);
      if (res.closed) release();
    },
    taken: new Set(),
  };
  res.locals.exchange = exchange;
  return exchange;
}

/** Sends the headers a call's steps set, unless the response went out already (answered at shutdown). */
const sendAnswerHeaders = (res: Response, call: Call) => {
  if (!res.headersSent) res.set(call.answerHeaders);
};

/** An HTTP request as a call: its own parts, headers and body stream; API keys, task tokens and wallet sessions. */
export function httpCall(req: Request, res: Response, ctx: ApiContext): Call {
  return {
    headers: req.headers,
    body: req.body,
    query: req.query,
    params: req.params,
    hasBody: hasBody(req.headers),
    bodyStream: req,
    accepts: (types) => req.accepts(types),
    address: callerAddress(req),
    base: publicBase(ctx.config.server, req),
    authenticate: (requirement) => ctx.authenticate(req.headers, requirement),
    answerHeaders: {},
    exchange: httpExchange(res),
  };
}

async function runEndpoint(endpoint: Endpoint, ctx: ApiContext, req: Request, res: Response): Promise<void> {
  const call = httpCall(req, res, ctx);
  // What the steps before a refusal set (the rate limits counted) is sent with it, as with an answer.
  const answer = await executeEndpoint(endpoint, ctx, call).finally(() => sendAnswerHeaders(res, call));
  if (answer.events) {
    const { heartbeatMs } = ctx.config.events;
    return writeEventStream(res, answer.events, { heartbeatMs, headers: answer.headers });
  }
  // What a negotiated answer is depends on Accept: caches must keep the two apart.
  if (endpoint.success.csv) res.vary('Accept');
  if (answer.csv !== undefined) res.status(answer.status).set(answer.headers).type('text/csv').send(answer.csv);
  else if (answer.body === undefined) res.status(answer.status).set(answer.headers).end();
  else res.status(answer.status).set(answer.headers).json(answer.body);
}

/**
 * A body the JSON parser refused reaches no route: a call without a key is counted here as the route counts it, and a
 * paymentless call's refusal goes to the endpoint's probe.
 */
function refusedBody(endpoint: Endpoint, ctx: ApiContext) {
  return (refusal: unknown, req: Request, res: Response, next: NextFunction) => {
    const call = httpCall(req, res, ctx);
    if (req.path !== '/' || req.method !== endpoint.method.toUpperCase() || !countsKeylessCall(endpoint, ctx, call))
      return next(refusal);
    res.locals.route = req.baseUrl;
    const probe = paysWithoutKey(endpoint, ctx, call) ? endpoint.paymentProbe : undefined;
    countKeylessCall(endpoint, ctx, call)
      .then(() => (probe ? probe(refusal, { endpoint, ctx, call }) : Promise.reject(refusal)))
      .catch((error: unknown) => {
        sendAnswerHeaders(res, call);
        next(error);
      });
  };
}

/**
 * Answers 405 (with Allow) for known paths called with another method, then mounts the endpoints. The 405s come
 * first, in the endpoints' order, so a fixed path (`/keys/current`) is not taken for a parameter (`/keys/{id}`).
 */
export function mountEndpoints(router: Router, endpoints: Endpoint[], ctx: ApiContext): void {
  const methodsByPath = new Map<string, Set<string>>();
  for (const endpoint of endpoints) {
    const path = toExpressPath(endpoint.path);
    const methods = methodsByPath.get(path) ?? new Set<string>();
    methods.add(endpoint.method.toUpperCase());
    if (endpoint.method === 'get') methods.add('HEAD');
    methodsByPath.set(path, methods);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = [...methods].join(', ');
    router.all(path, (req, res, next) => {
      if (methods.has(req.method)) return next();
      res.locals.route = `${req.baseUrl}${path}`;
      res.set('Allow', allow);
      throw new ApiError(
        'method_not_allowed',
        `${req.method} is not allowed on ${req.baseUrl}${req.path}; allowed: ${allow}.`,
      );
    });
  }
  for (const endpoint of endpoints) {
    const path = toExpressPath(endpoint.path);
    router[endpoint.method](path, (req, res) => {
      res.locals.route = `${req.baseUrl}${path}`;
      return runEndpoint(endpoint, ctx, req, res);
    });
    if (publicWithLimit(endpoint) || takesKeylessPayment(endpoint, ctx.config, ctx.payments))
      router.use(path, refusedBody(endpoint, ctx));
  }
}

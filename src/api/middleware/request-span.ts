// The server span of each HTTP request, mounted only when tracing is on: what the request does (the Temporal
// client's start of a workflow, …) runs in its context. Made here rather than by @opentelemetry/instrumentation-http:
// that one patches modules as they load, which an ES-module service only allows with a loader hook at start-up.
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import type { RequestHandler } from 'express';

export const requestSpan: RequestHandler = (req, res, next) => {
  // A caller that traces too (W3C traceparent) gets the request in its own trace.
  const parent = propagation.extract(context.active(), req.headers);
  const span = trace
    .getTracer('generation-gateway-http')
    .startSpan(
      req.method,
      { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: req.method, [ATTR_URL_PATH]: req.path } },
      parent,
    );
  // Named for its route once routed (ids in the path would make every span name unique).
  res.once('close', () => {
    if (req.route) {
      const route = `${req.baseUrl}${String((req.route as { path: unknown }).path)}`;
      span.setAttribute(ATTR_HTTP_ROUTE, route);
      span.updateName(`${req.method} ${route}`);
    }
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(trace.setSpan(parent, span), next);
};

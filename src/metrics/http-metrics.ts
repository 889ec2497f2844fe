// Every HTTP answer, counted and timed by its route pattern (never the raw path, which would make a series per id).
import type { RequestHandler, Response } from 'express';
import { metrics } from './metrics.ts';

const admissionRoute = '/api/v1/generations';
// 202, or 201 when a `Prefer: wait` saw the task end: admitted either way.
const admitted = (status: number) => status === 202 || status === 201;

/** Names the route of requests a router serves without a route of its own (static files). */
export const routeLabel =
  (route: string): RequestHandler =>
  (_req, res, next) => {
    res.locals.route = route;
    next();
  };

/** The error code the error middleware answered with (it records it here), if any. */
export const recordErrorCode = (res: Response, code: string) => {
  res.locals.errorCode = code;
};

export const httpMetrics: RequestHandler = (req, res, next) => {
  const stop = metrics.httpDuration.startTimer();
  res.once('finish', () => {
    // The pattern set by mountEndpoints or routeLabel; else the matched route's own (its mount path is still in
    // baseUrl unless an error left the router), or none.
    const matched = req.route ? `${req.baseUrl}${req.route.path as string}` : 'unmatched';
    const route = (res.locals.route as string | undefined) ?? matched;
    if (route === '/metrics') return;
    const labels = { method: req.method, route, status: String(res.statusCode) };
    stop(labels);
    metrics.httpRequests.inc(labels);
    const code = res.locals.errorCode as string | undefined;
    if (code) metrics.httpErrors.inc({ method: req.method, route, code });
    if (req.method === 'POST' && route === admissionRoute)
      metrics.admissions.inc({ outcome: admitted(res.statusCode) ? 'admitted' : (code ?? String(res.statusCode)) });
  });
  next();
};

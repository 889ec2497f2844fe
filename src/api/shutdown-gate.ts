// Shutdown as callers see it: once the server is closing, a new request (on a kept-alive connection) is answered 503
// at once, and one still pending when the drain time is up is answered 503 too, both with Retry-After and
// Connection: close, so the caller retries (against this service once it is back, or another instance).
import type { Server } from 'node:http';
import type { RequestHandler, Response } from 'express';
import { ApiError } from './errors.ts';

export interface ShutdownGate {
  middleware: RequestHandler;
  /** Stops taking connections, lets pending requests finish for up to `drainMs`, answers the rest 503. */
  close(server: Server, drainMs: number): Promise<void>;
}

const shuttingDown = new ApiError(
  'service_unavailable',
  'The service is shutting down; nothing more is done for this request. Retry shortly.',
  {},
  { 'Retry-After': '5', Connection: 'close' },
);

/**
 * Aborted once the server starts closing: a handler that is only waiting (`Prefer: wait`) stops and answers what it
 * has, rather than be cut off with a 503 at the end of the drain. Absent where no gate runs.
 */
export const shutdownSignal = (res: Response): AbortSignal | undefined => res.locals.shutdownSignal as AbortSignal;

/** Aborts when the caller hangs up (a wait or a stream on its behalf ends with it) or the server starts shutting down. */
export function hangUpSignal(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => controller.abort());
  const shutdown = shutdownSignal(res);
  return shutdown ? AbortSignal.any([controller.signal, shutdown]) : controller.signal;
}

/** Whether the gate answered this response while its handler still ran (the handler's own answer then goes nowhere). */
export const answeredAtShutdown = (res: Response): boolean => res.locals.answeredAtShutdown === true;

export function createShutdownGate(): ShutdownGate {
  const pending = new Set<Response>();
  let closingServer: Server | undefined;
  let drained: (() => void) | undefined;
  const closing = new AbortController();

  const refuse = (res: Response) => {
    if (res.headersSent) return;
    res.status(shuttingDown.status).set(shuttingDown.headers).json(shuttingDown.toBody());
  };

  return {
    middleware(_req, res, next) {
      if (closingServer) {
        refuse(res);
        return;
      }
      pending.add(res);
      res.locals.shutdownSignal = closing.signal;
      res.once('close', () => {
        pending.delete(res);
        if (!closingServer) return;
        // The connection of an answered request is idle a moment later: close it rather than keep it alive.
        const server = closingServer;
        setImmediate(() => server.closeIdleConnections());
        if (pending.size === 0) drained?.();
      });
      next();
    },

    async close(server, drainMs) {
      closingServer = server;
      closing.abort();
      const closed = new Promise<void>((done) => server.close(() => done()));
      server.closeIdleConnections();
      if (pending.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((done) => {
          drained = done;
          timer = setTimeout(done, drainMs);
        });
        clearTimeout(timer);
      }
      for (const res of pending) {
        res.locals.answeredAtShutdown = true;
        refuse(res);
      }
      // Answers with Connection: close end their connections; whatever is left (a slow upload) is cut shortly after.
      const cut = setTimeout(() => server.closeAllConnections(), 1_000);
      await closed;
      clearTimeout(cut);
    },
  };
}

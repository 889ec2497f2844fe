// The Express application, without listen(): the api role serves it, tests drive it in-process.
import express, { Router, type Express } from 'express';
import { pinoHttp } from 'pino-http';
import { publicBaseScope } from './api/public-origin.ts';
import type { Logger } from './infra/logger.ts';
import type { SigningKeys } from './payments/receipts/signing-key.ts';
import { oauthRouter } from './api/oauth/oauth-router.ts';
import { consoleRouter } from './api/console.ts';
import { docsRouter } from './api/docs.ts';
import type { ApiContext, Endpoint } from './api/endpoint.ts';
import { mountEndpoints } from './api/express-adapter.ts';
import { ApiError } from './api/errors.ts';
import { errorHandler, notFound } from './api/middleware/errors.ts';
import { jsonBody } from './api/middleware/json-body.ts';
import { requestSpan } from './api/middleware/request-span.ts';
import { assignRequestId } from './api/middleware/request-id.ts';
import { buildOpenApiDocument } from './api/openapi.ts';
import type { ShutdownGate } from './api/shutdown-gate.ts';
import { x402Offered } from './chain/settings.ts';

// The runtime closes the server it listens on through the app's gate.
export { createShutdownGate, type ShutdownGate } from './api/shutdown-gate.ts';
import { apiEndpoints } from './api/resources/index.ts';
import { upstreamCallbacksRouter } from './api/upstream-callbacks.ts';
import { deprecatedAliasHeaders } from './api/resources/generations/generations.routes.ts';
import { checkHealth, type HealthProbes } from './health.ts';
import type { Providers } from './providers/registry.ts';
import { sandboxedFiles, storedFiles } from './api/middleware/stored-files.ts';
import { llmsTxtRouter } from './api/llms-txt.ts';
import { wellKnownRouter } from './api/discovery/well-known.ts';
import { didDocumentRouter } from './api/discovery/did-document.ts';
import { mcpRouter } from './api/mcp/mcp-router.ts';
import { openAiRouter } from './api/openai/openai-router.ts';
import { deliveredOutputsOnly, linkedFileKey, noFile } from './api/middleware/delivered-outputs.ts';
import { answerScrape } from './metrics/exposition.ts';
import { httpMetrics, routeLabel } from './metrics/http-metrics.ts';

export const apiBasePath = '/api/v1';

/** What the app mounts: the services are built by the composition root (src/composition/api-services.ts). */
export interface AppDeps {
  /** What every endpoint and MCP tool runs with (its `config` is the app's). */
  ctx: ApiContext;
  /** The offer and receipt keys the DID document publishes. */
  signingKeys: SigningKeys;
  logger: Logger;
  health: HealthProbes;
  /** The providers' adapters (upstream callbacks), shared with the worker when both roles run in one process. */
  providers: Providers;
  /** The interface's endpoints; tests may add their own to exercise the shared machinery. */
  endpoints?: Endpoint[];
  /** Answers 503 while the server shuts down (the runtime's); without it, requests are never refused for that. */
  shutdownGate?: ShutdownGate;
}

function healthRouter(probes: HealthProbes, logger: Logger): Router {
  const router = Router();
  router.get('/healthz', async (_req, res) => {
    const checks = await checkHealth(probes, (name, error) =>
      logger.warn({ err: error, component: name }, 'health check failed'),
    );
    const down = Object.entries(checks)
      .filter(([, check]) => check.status === 'down')
      .map(([name]) => name);
    if (down.length === 0) {
      res.json({ status: 'ok', checks });
      return;
    }
    const reasons = down.map((name) => `${name} (${checks[name]!.detail})`).join(', ');
    res
      .status(503)
      .json({ ...new ApiError('service_unavailable', `Down: ${reasons}.`).toBody(), status: 'down', checks });
  });
  return router;
}

function apiRouter(endpoints: Endpoint[], ctx: ApiContext): Router {
  const router = Router();
  const openApiDocument = buildOpenApiDocument(endpoints, { serverUrl: apiBasePath, x402: x402Offered(ctx.config) });
  const rawBodyPaths = endpoints.filter((endpoint) => endpoint.rawBody).map((endpoint) => endpoint.path);
  router.use(jsonBody(ctx.config.server.jsonBodyLimit, rawBodyPaths));
  router.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  router.use('/predictions', deprecatedAliasHeaders);
  mountEndpoints(router, endpoints, ctx);
  router.use(notFound);
  return router;
}

/** Express's "trust proxy" from TRUST_PROXY: true/false, a hop count, or addresses/subnets. */
function trustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

export function createApp(deps: AppDeps): Express {
  const { ctx, signingKeys } = deps;
  const config = ctx.config;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy(config.server.trustProxy));
  // First, so the request's span covers all of it; only when tracing is on (src/infra/tracing.ts).
  if (config.tracing.otlpEndpoint) app.use(requestSpan);
  app.use(pinoHttp({ logger: deps.logger, genReqId: assignRequestId, quietReqLogger: true }));
  app.use(httpMetrics);
  const metricsToken = config.metrics.token;
  if (metricsToken) app.get('/metrics', (req, res, next) => answerScrape(req, res, metricsToken).catch(next));
  if (deps.shutdownGate) app.use(deps.shutdownGate.middleware);
  app.use(publicBaseScope(config.server));
  app.use(healthRouter(deps.health, deps.logger));
  app.use(docsRouter(`${apiBasePath}/openapi.json`));
  app.use('/console', routeLabel('/console/*'), consoleRouter());
  app.use(llmsTxtRouter(config, ctx.catalog));
  app.use(wellKnownRouter(config, ctx.catalog));
  app.use(didDocumentRouter(config.server, signingKeys));
  // Generated outputs, once their task has completed, until OUTPUT_RETENTION_DAYS (410 after); immutable once written.
  app.use(
    '/files',
    routeLabel('/files/*'),
    sandboxedFiles,
    linkedFileKey,
    deliveredOutputsOnly(ctx.prisma, config.outputs),
    storedFiles(ctx.storage),
    noFile,
  );
  // Spec §9: the old /v1/* prefix moved to /api/v1/*; 308 keeps the method and body.
  app.use('/v1', (req, res) => {
    res.set('Deprecation', 'true').redirect(308, `${apiBasePath}${req.url}`);
  });
  const endpoints = deps.endpoints ?? apiEndpoints;
  app.use(apiBasePath, apiRouter(endpoints, ctx));
  app.use(oauthRouter(ctx));
  app.use(mcpRouter(endpoints, ctx, config.server.jsonBodyLimit));
  app.use('/openai/v1', routeLabel('/openai/v1/*'), openAiRouter(endpoints, ctx, config.server.jsonBodyLimit));
  app.use(
    '/callbacks',
    routeLabel('/callbacks/:provider/:taskId'),
    upstreamCallbacksRouter({
      providers: deps.providers,
      temporal: ctx.temporal,
      logger: deps.logger,
    }),
  );
  app.use(notFound);
  app.use(errorHandler);
  return app;
}

// The api role: the Express app on the shared services, its Temporal client, listening until the shutdown gate
// closes it.
import { once } from 'node:events';
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { holdIdleConnections } from '../net/keep-alive.ts';
import { createApp, createShutdownGate } from '../app.ts';
import { publicBaseUrl, shutdownBudget } from '../config/config.ts';
import { databaseProbe, temporalProbe } from '../health.ts';
import type { Stop } from '../infra/processes/stops.ts';
import { developmentSecretFile, developmentTokenSecret } from '../accounts/oauth/signing-secret.ts';
import { connectOptions } from '../use-cases/temporal/connection.ts';
import { buildApiServices } from './api-services.ts';
import type { SharedServices } from './shared-services.ts';

/** Serves the API, pushing its stop onto `stops`; returns its banner lines. */
export async function startApiRole(services: SharedServices, stops: Stop[]): Promise<string[]> {
  const { tracing } = services;
  // Production has its own (config.ts refuses to start without it); elsewhere one is made in DATA_DIR and kept.
  const tokenSecret =
    services.config.oauth.tokenSecret ?? (await developmentTokenSecret(services.config.server.dataDir));
  const config = { ...services.config, oauth: { ...services.config.oauth, tokenSecret } };
  // Lazy: the API comes up (and /healthz reports it) even while Temporal is unreachable. Never closed: a request
  // answered 503 at shutdown may still be retrying a call on it, and grpc-js throws (uncaught) from a retry
  // timer that finds its channel closed. The process exit ends it.
  const connection = Connection.lazy(connectOptions(config.temporal));
  const shutdownGate = createShutdownGate();
  const { ctx, signingKeys } = buildApiServices({
    config,
    prisma: services.prisma,
    databaseUrl: services.databaseUrl,
    catalog: services.catalog,
    storage: services.storage,
    facilitator: services.facilitator,
    temporal: {
      client: new Client({
        connection,
        namespace: config.temporal.namespace,
        interceptors: tracing?.clientInterceptors,
      }),
      taskQueue: config.temporal.taskQueue,
    },
    logger: services.logger,
  });
  const app = createApp({
    ctx,
    signingKeys,
    providers: services.providers,
    logger: services.logger,
    health: {
      database: databaseProbe(services.prisma),
      temporal: temporalProbe(connection, config.temporal.namespace),
    },
    shutdownGate,
  });
  const server: Server = holdIdleConnections(app.listen(config.server.port, config.server.host));
  await once(server, 'listening');
  stops.push({ name: 'api', stop: () => shutdownGate.close(server, shutdownBudget(config.server).requestsMs) });
  const base = publicBaseUrl(config.server);
  return [
    `API           ${base}/api/v1`,
    `Console       ${base}/console`,
    `Docs          ${base}/docs`,
    `Health        ${base}/healthz`,
    ...(services.config.oauth.tokenSecret
      ? []
      : [`OAuth         tokens signed with the development secret in ${developmentSecretFile(config.server.dataDir)}`]),
  ];
}

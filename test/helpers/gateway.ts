// The whole gateway for end-to-end tests: a Temporal dev server, a fresh database, a worker with the real
// activities, local storage, and the API on a known port (so output URLs point at it).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { Client } from '@temporalio/client';
import { type Catalog, loadCatalog } from '../../src/catalog/catalog.ts';
import { type Config, loadConfig, publicBaseUrl } from '../../src/config/config.ts';
import { type ConfigOverrides, mergeConfig } from './config.ts';
import { startTracing, type Tracing } from '../../src/infra/tracing.ts';
import { credit } from '../../src/ledger/ledger.ts';
import { configuredStorage } from '../../src/storage/configured-storage.ts';
import { filesDirectory } from '../../src/storage/local-storage.ts';
import { temporalTracing } from '../../src/use-cases/temporal/tracing.ts';
import { createWorkers, runWorkers } from '../../src/worker.ts';
import { createDeveloperWithKey } from './accounts.ts';
import { startTestApp, type TestApp } from './app.ts';
import { type RealStack, useDevServerAndDatabase } from './stack.ts';
import { type GenerationOptions, startGeneration } from './http.ts';
import { bundleWorkflows, uniqueTaskQueue } from './temporal.ts';
import { configuredFacilitator, type PaymentFacilitator } from '../../src/payments/methods/x402/facilitator.ts';
import { createWorkerStarter } from '../../src/use-cases/temporal/worker-starter.ts';

export interface Gateway extends RealStack {
  app: TestApp;
  config: Config;
  catalog: Catalog;
  /** Stops the workers (as a worker process stopping would: running activities drain) and starts new ones. */
  restartWorkers(): Promise<void>;
  /** The workers' x402 facilitator (the configured one); a replacement takes effect at the next settlement. */
  facilitator: () => PaymentFacilitator;
  /** Where the workers store outputs with the local driver (the API serves them under /files). */
  filesDir: string;
  /** Started as `npm start` starts it: when the configuration has OTEL_EXPORTER_OTLP_ENDPOINT. */
  tracing?: Tracing;
}

export interface GatewayOptions {
  /** Leave PUBLIC_BASE_URL unset, as `npm start` does: links name localhost at the app's port, or the request's. */
  unpublished?: boolean;
}

/** `configure` runs in beforeAll (so it may start stand-ins) and returns configuration overrides. */
export function useGateway(
  configure: () => Promise<ConfigOverrides> | ConfigOverrides = () => ({}),
  { unpublished = false }: GatewayOptions = {},
): Gateway {
  const stack = useDevServerAndDatabase();
  const gateway = stack as Gateway;
  let stopWorkers: (() => void) | undefined;
  let dataDir: string | undefined;
  let workersRun: Promise<void> | undefined;
  beforeAll(async () => {
    gateway.config = mergeConfig(
      loadConfig(
        {
          NODE_ENV: 'test',
          ALLOW_PRIVATE_INPUT_URLS: 'true',
          ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
          ALLOW_PRIVATE_OUTPUT_URLS: 'true',
        },
        [],
      ),
      { temporal: { taskQueue: uniqueTaskQueue('gateway'), webhookTaskQueue: uniqueTaskQueue('webhooks') } },
      await configure(),
    );
    gateway.catalog = loadCatalog();
    dataDir = await mkdtemp(join(tmpdir(), 'gateway-data-'));
    gateway.filesDir = filesDirectory(dataDir);
    // The API's address is known once it listens (on a port of its own choosing, so no other process can take it).
    const storage = configuredStorage(gateway.config.storage, dataDir, () => publicBaseUrl(gateway.config.server));
    const taskQueue = gateway.config.temporal.taskQueue;
    gateway.tracing = await startTracing(gateway.config.tracing, gateway.config.server.role);
    const tracing = await temporalTracing(gateway.tracing);
    const workflowBundle = await bundleWorkflows(tracing?.workflowInterceptorModules);
    gateway.facilitator = configuredFacilitator(gateway.config);
    // The worker role's workers: the main queue, one per provider and the webhooks queue.
    const activityDeps = {
      prisma: stack.database.prisma,
      catalog: gateway.catalog,
      storage,
      config: gateway.config,
      facilitator: () => gateway.facilitator(),
    };
    const startWorkers = async () => {
      const workers = await createWorkers(
        stack.env.nativeConnection,
        {
          config: gateway.config,
          taskQueue,
          namespace: 'default',
          workflows: { workflowBundle },
          tracing,
        },
        { ...activityDeps, starter: createWorkerStarter(activityDeps) },
      );
      workersRun = runWorkers(
        workers,
        new Promise<void>((resolve) => {
          stopWorkers = resolve;
        }),
      );
    };
    gateway.restartWorkers = async () => {
      stopWorkers?.();
      await workersRun;
      await startWorkers();
    };
    await startWorkers();
    gateway.app = await startTestApp({
      database: stack.database,
      config: gateway.config,
      catalog: gateway.catalog,
      storage,
      temporal: {
        // The api's client, with tracing's interceptors when on (as the runtime makes it).
        client: tracing
          ? new Client({
              connection: stack.env.connection,
              namespace: 'default',
              interceptors: tracing.clientInterceptors,
            })
          : stack.env.client,
        taskQueue,
      },
    });
    for (const server of [gateway.config.server, gateway.app.config.server]) {
      if (unpublished) server.port = Number(new URL(gateway.app.url).port);
      else server.publicBaseUrl = gateway.app.url;
    }
  });
  afterAll(async () => {
    await gateway.app?.close();
    stopWorkers?.();
    await workersRun;
    await gateway.tracing?.shutdown();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  return gateway;
}

export interface FundedDeveloper {
  key: string;
  accountId: string;
  /** The balance row's balance, in micro-USD. */
  balance(): Promise<bigint>;
}

/** A developer with `amount` micro-USD (default 5.00), created in beforeAll (fields filled in then). */
export function useFundedDeveloper(
  gateway: Gateway,
  { amount = 5_000_000n }: { amount?: bigint } = {},
): FundedDeveloper {
  const developer = {
    balance: async () =>
      (await gateway.database.prisma.balance.findUniqueOrThrow({ where: { accountId: developer.accountId } })).balance,
  } as FundedDeveloper;
  beforeAll(async () => {
    const created = await createDeveloperWithKey(gateway.database.prisma);
    developer.key = created.apiKey.key;
    developer.accountId = created.developerId;
    await credit(gateway.database.prisma, {
      accountId: developer.accountId,
      amount,
      kind: 'adjustment',
      idempotencyKey: `topup:${developer.accountId}`,
    });
  });
  return developer;
}

/** Cancels a running task through Temporal and waits until it has ended failed. */
export async function cancelTask(gateway: Gateway, taskId: string): Promise<void> {
  await gateway.env.client.workflow.getHandle(taskId).cancel();
  await expect
    .poll(async () => (await gateway.database.prisma.task.findUniqueOrThrow({ where: { id: taskId } })).status, {
      timeout: 15_000,
    })
    .toBe('failed');
}

/**
 * Posts a generation, waits until the upstream has its job (`submitted`), cancels the task through Temporal and
 * waits until the task is `failed`. Returns the task id.
 */
export async function cancelWhileUpstreamRuns(
  gateway: Gateway,
  { submitted, ...generation }: GenerationOptions & { submitted: () => boolean },
): Promise<string> {
  const taskId = await startGeneration(gateway, generation);
  await expect.poll(submitted, { timeout: 10_000 }).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await cancelTask(gateway, taskId);
  return taskId;
}

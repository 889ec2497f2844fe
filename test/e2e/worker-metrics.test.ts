// A worker process as docker-compose runs one (`--role worker`, no HTTP of its own otherwise) serves its metrics on
// METRICS_PORT and the Temporal SDK's on TEMPORAL_METRICS_PORT: after one task it ran, the task's series say exactly
// that, and the SDK's `temporal_…` series are there.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import { credit } from '../../src/ledger/ledger.ts';
import { createLocalStorage } from '../../src/storage/local-storage.ts';
import { createDeveloperWithKey } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { generateAndWait } from '../helpers/http.ts';
import { freePort } from '../../harness/ports.ts';
import { parseSamples, scrape, sumOf } from '../helpers/prometheus.ts';
import { useDevServerAndDatabase } from '../helpers/stack.ts';
import { uniqueTaskQueue } from '../helpers/temporal.ts';
import { launchWorkerProcess } from '../helpers/worker-process.ts';
import type { GatewayProcess } from '../../harness/stacks/gateway-process.ts';

const stack = useDevServerAndDatabase();
const taskQueue = uniqueTaskQueue('worker-metrics');
const token = 'worker-metrics-token-0123456789';
let dataDir: string;
let app: TestApp;
let worker: GatewayProcess | undefined;
let ports: { metrics: number; temporal: number };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-worker-metrics-'));
  await chmod(dataDir, 0o755);
  app = await startTestApp({
    database: stack.database,
    config: loadConfig({ NODE_ENV: 'test' }, []),
    catalog: loadCatalog(),
    storage: createLocalStorage(join(dataDir, 'files'), 'http://127.0.0.1'),
    temporal: { client: stack.env.client, taskQueue },
  });
  ports = { metrics: await freePort(), temporal: await freePort() };
  worker = await launchWorkerProcess({
    databaseUrl: stack.database.url,
    temporalAddress: stack.env.address,
    taskQueue,
    dataDir,
    env: {
      TEMPORAL_WEBHOOK_TASK_QUEUE: `${taskQueue}-webhooks`,
      METRICS_PORT: String(ports.metrics),
      METRICS_TOKEN: token,
      TEMPORAL_METRICS_PORT: String(ports.temporal),
    },
  });
  await worker.up;
  expect(worker.output()).toContain(`Metrics       http://127.0.0.1:${ports.metrics}/metrics`);
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("the worker process's metrics count the task it ran; the Temporal SDK's are served beside them", async () => {
  const metricsUrl = `http://127.0.0.1:${ports.metrics}/metrics`;
  expect((await fetch(metricsUrl)).status).toBe(401);
  const before = await scrape(metricsUrl, token);
  const completed = { model: 'local/espeak', provider: 'local', status: 'completed' };
  expect(sumOf(before, 'gateway_tasks_ended_total')).toBe(0);

  const developer = await createDeveloperWithKey(stack.database.prisma);
  await credit(stack.database.prisma, {
    accountId: developer.developerId,
    amount: 1_000_000n,
    kind: 'adjustment',
    idempotencyKey: `topup:${developer.developerId}`,
  });
  const task = await generateAndWait(
    { app },
    { key: developer.apiKey.key, body: { type: 'text-to-audio', model: 'local/espeak', prompt: 'Scraped.' } },
  );
  expect(task.status).toBe('completed');

  // This process is a worker: the task's end and its provider call are its own; no HTTP request was served here.
  const after = await scrape(metricsUrl, token);
  expect({
    ended: sumOf(after, 'gateway_tasks_ended_total', completed),
    timed: sumOf(after, 'gateway_task_duration_seconds_count', completed),
    charged: sumOf(after, 'gateway_money_charged_micro_usd_total', { model: 'local/espeak' }),
    calls: sumOf(after, 'gateway_provider_calls_total', { provider: 'local', operation: 'run', outcome: 'ok' }),
    requests: sumOf(after, 'gateway_http_requests_total'),
  }).toEqual({ ended: 1, timed: 1, charged: Math.round(task.cost * 1e6), calls: 1, requests: 0 });

  // The SDK's own exporter (Temporal Core): counters with _total, durations in seconds with the unit in the name.
  // The task's row ends before its workflow does (the webhook step follows): wait for the workflow to complete.
  await stack.env.client.workflow.getHandle(task.id).result();
  const sdk = await fetch(`http://127.0.0.1:${ports.temporal}/metrics`);
  expect(sdk.status).toBe(200);
  const samples = parseSamples(await sdk.text());
  const names = new Set(samples.map(({ name }) => name));
  expect([...names].filter((name) => !name.startsWith('temporal_'))).toEqual([]);
  expect(sumOf(samples, 'temporal_workflow_completed_total', { task_queue: taskQueue })).toBeGreaterThanOrEqual(1);
  expect(
    sumOf(samples, 'temporal_activity_execution_latency_seconds_count', {
      activity_type: 'generateOutputs',
      task_queue: `${taskQueue}-local`,
    }),
  ).toBe(1);
});

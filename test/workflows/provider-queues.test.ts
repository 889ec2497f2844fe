// The workers of one process (src/worker.ts createWorkers): provider calls go to the provider's own task queue,
// whose activity slots are the configured concurrency. Three local tasks with LOCAL_CONCURRENCY=1 run one at a
// time, while an OpenAI-compatible call runs beside them on its own queue. On the dev server, in real time: the
// time-skipping server would skip past the timeouts of activities that wait for a slot.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { GenerationRequest } from '../../src/domain/generation-request.ts';
import { requestHash } from '../../src/generations/request.ts';
import type { Providers } from '../../src/providers/registry.ts';
import type { ProviderRunner } from '../../src/providers/types.ts';
import { newId } from '../../src/domain/ids.ts';
import { credit } from '../../src/ledger/ledger.ts';
import { createLocalStorage } from '../../src/storage/local-storage.ts';
import { createWorkers, runWorkers } from '../../src/worker.ts';
import { configuredFacilitator } from '../../src/payments/methods/x402/facilitator.ts';
import { admitUpdate } from '../../workflows/contracts/generation.types.ts';
import { generationWorkflow } from '../../workflows/generation/generation.workflow.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { mergeConfig } from '../helpers/config.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { bundleWorkflows, createDevServerEnv, uniqueTaskQueue } from '../helpers/temporal.ts';
import { createWorkerStarter } from '../../src/use-cases/temporal/worker-starter.ts';

let env: TestWorkflowEnvironment;
let database: TestDatabase;
beforeAll(async () => {
  [env, database] = await Promise.all([createDevServerEnv(), createTestDatabase()]);
});
afterAll(async () => {
  await env?.teardown();
  await database?.drop();
});

it("runs each provider's calls on its own queue, at most its configured concurrency at once", async () => {
  const running: Record<string, number> = { local: 0, openai: 0 };
  const peak: Record<string, number> = { local: 0, openai: 0 };
  const overlapped: string[] = [];
  // A runner that takes a while and records how many calls of its provider run together.
  const slowRunner =
    (provider: string): ProviderRunner =>
    async () => {
      running[provider]! += 1;
      peak[provider] = Math.max(peak[provider]!, running[provider]!);
      if (running.local! > 0 && running.openai! > 0) overlapped.push(provider);
      await new Promise((resolve) => setTimeout(resolve, 400));
      running[provider]! -= 1;
      return { files: [{ data: Buffer.from('out'), extension: 'txt', contentType: 'text/plain' }] };
    };
  const providers: Providers = {
    for: (model) => ({ kind: 'runner', run: slowRunner(model.provider) }),
    jobsOf: () => undefined,
  };
  const taskQueue = uniqueTaskQueue('provider-queues');
  const config = mergeConfig(loadConfig({}, []), {
    providers: { local: { concurrency: 1 }, openai: { concurrency: 4 } },
    temporal: { webhookTaskQueue: `${taskQueue}-webhooks` },
  });
  const storage = createLocalStorage(await mkdtemp(join(tmpdir(), 'gateway-queues-')), 'http://files.test');
  const activityDeps = {
    prisma: database.prisma,
    catalog: loadCatalog(),
    storage,
    config,
    facilitator: configuredFacilitator(config),
    providers,
  };
  const workers = await createWorkers(
    env.nativeConnection,
    { config, taskQueue, namespace: 'default', workflows: { workflowBundle: await bundleWorkflows() } },
    { ...activityDeps, starter: createWorkerStarter(activityDeps) },
  );
  expect(workers.map((worker) => worker.options.taskQueue).sort()).toEqual([
    taskQueue,
    `${taskQueue}-fal`,
    `${taskQueue}-local`,
    `${taskQueue}-openai`,
    `${taskQueue}-replicate`,
  ]); // no webhooks queue: deliveries run on the main one, and no earlier build left any there

  const accountId = await createFundedAccount(database.prisma);
  await credit(database.prisma, {
    accountId,
    amount: 10_000_000n,
    kind: 'deposit',
    idempotencyKey: `deposit:${accountId}`,
  });
  const requests: GenerationRequest[] = [
    ...Array.from({ length: 3 }, (): GenerationRequest => ({
      type: 'upscale',
      model: 'local/lanczos',
      image_url: 'https://inputs.test/a.png',
    })),
    { type: 'text-to-text', model: 'openai/kimi-k2', prompt: 'hi', max_tokens: 10 },
  ];
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const run = runWorkers(workers, stopped);
  const results = await Promise.all(
    requests.map(async (request) => {
      const input = {
        taskId: newId('gen'),
        accountId,
        request,
        costMicros: '100000',
        idempotencyKey: null,
        modelId: request.model,
        requestHash: requestHash(request),
        timeoutSeconds: 60,
      };
      const handle = await env.client.workflow.start(generationWorkflow, {
        taskQueue,
        workflowId: input.taskId,
        args: [input],
      });
      await handle.executeUpdate(admitUpdate, { args: [{ requestHash: input.requestHash }] });
      return handle.result();
    }),
  );
  stop();
  await run;
  expect(results.map((view) => view?.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
  expect(peak).toEqual({ local: 1, openai: 1 });
  // The local queue was busy for three calls in a row; the OpenAI call did not wait for a local slot.
  expect(overlapped.length).toBeGreaterThan(0);
});

// The provider call reports how long its attempt waited for a provider slot (from Temporal's scheduled time), so the
// workflow can leave that wait out of the model's timeout.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProviderActivities, type ProviderActivities } from '../../activities/provider.activities.ts';
import type { SubmittedJob } from '../../workflows/contracts/provider.types.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createLocalStorage } from '../../src/storage/local-storage.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { schnellRequest } from '../helpers/generation-workflow.ts';
import { outputMedia } from '../helpers/media.ts';
import { type FalStandIn, startFalStandIn } from '../stand-ins/fal-queue.ts';

let upstream: FalStandIn;
let filesDir: string;
let activities: ProviderActivities;
let database: TestDatabase;
beforeAll(async () => {
  upstream = await startFalStandIn({ key: 'fal-test-key', media: await outputMedia() });
  database = await createTestDatabase();
  filesDir = await mkdtemp(join(tmpdir(), 'provider-queue-time-'));
  activities = createProviderActivities({
    catalog: loadCatalog(),
    storage: createLocalStorage(filesDir, 'http://localhost'),
    config: loadConfig({ NODE_ENV: 'test', FAL_KEY: 'fal-test-key', FAL_QUEUE_URL: upstream.queueUrl }, []),
    prisma: database.prisma,
  });
});
afterAll(async () => {
  await upstream?.close();
  await database?.drop();
  if (filesDir) await rm(filesDir, { recursive: true, force: true });
});

/** Submits a fal job in an attempt Temporal scheduled `scheduledAgoMs` before; answers the job's `queuedMs`. */
async function queuedMsOf(scheduledAgoMs: number) {
  const environment = new MockActivityEnvironment({ currentAttemptScheduledTimestampMs: Date.now() - scheduledAgoMs });
  const submitted = await environment.run(activities.generateOutputs, {
    taskId: 'gen_0000000000000000000001',
    modelId: schnellRequest.model,
    request: schnellRequest,
  });
  expect(submitted).toHaveProperty('job');
  return (submitted as { job: SubmittedJob }).job.queuedMs;
}

it('a submission scheduled 5 s before it ran reports about 5 s queued; one that ran at once, about none', async () => {
  const queued = await queuedMsOf(5_000);
  expect(queued).toBeGreaterThanOrEqual(5_000);
  expect(queued).toBeLessThan(10_000);
  expect(await queuedMsOf(0)).toBeLessThan(1_000);
  expect(upstream.submitted).toHaveLength(2);
});

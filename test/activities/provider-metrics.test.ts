// Issue 16.9: an upstream 401/403 (our provider key is wrong or out of credit) is counted for operators, once per
// refused call, by provider and status; the caller's own mistakes (400) and transient answers are not.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderActivities, type ProviderActivities } from '../../activities/provider.activities.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import { registry } from '../../src/metrics/metrics.ts';
import { createLocalStorage } from '../../src/storage/local-storage.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { parseSamples, sumOf } from '../helpers/prometheus.ts';
import { type OpenAIStandIn, startOpenAIStandIn } from '../stand-ins/openai-compatible.ts';

let upstream: OpenAIStandIn;
let filesDir: string;
let activities: ProviderActivities;
let database: TestDatabase;
beforeAll(async () => {
  upstream = await startOpenAIStandIn();
  database = await createTestDatabase();
  filesDir = await mkdtemp(join(tmpdir(), 'provider-metrics-'));
  const config = loadConfig(
    {
      NODE_ENV: 'test',
      OPENAI_BASE_URL: upstream.baseUrl,
      OPENAI_API_KEY: 'sk-wrong',
      ALLOW_PRIVATE_OUTPUT_URLS: 'true',
    },
    [],
  );
  activities = createProviderActivities({
    catalog: loadCatalog(),
    storage: createLocalStorage(filesDir, 'http://localhost'),
    config,
    prisma: database.prisma,
  });
});
afterAll(async () => {
  await upstream?.close();
  await database?.drop();
  if (filesDir) await rm(filesDir, { recursive: true, force: true });
});

const metricsNow = async () => parseSamples(await registry.metrics());
const chat = (prompt: string) =>
  new MockActivityEnvironment().run(activities.generateOutputs, {
    taskId: 'gen_0000000000000000000001',
    modelId: 'openai/kimi-k2',
    request: { type: 'text-to-text' as const, model: 'openai/kimi-k2', prompt, max_tokens: 16 },
  });

describe('gateway_provider_operator_failures_total', () => {
  it.each([401, 403])(
    'an upstream %i fails the call as the provider being unavailable and counts it once',
    async (status) => {
      const before = await metricsNow();
      await expect(chat(`hello [[${status}]]`)).rejects.toMatchObject({
        type: 'ProviderUnavailable',
        nonRetryable: true,
      });
      const after = await metricsNow();
      const delta = (name: string, labels: Record<string, string>) =>
        sumOf(after, name, labels) - sumOf(before, name, labels);
      expect(delta('gateway_provider_operator_failures_total', { provider: 'openai', status: String(status) })).toBe(1);
      expect(delta('gateway_provider_operator_failures_total', {})).toBe(1);
      expect(delta('gateway_provider_calls_total', { provider: 'openai', operation: 'run', outcome: 'account' })).toBe(
        1,
      );
    },
  );

  it("a refusal of the caller's request (400) is not the operator's: not counted there", async () => {
    const before = await metricsNow();
    await expect(chat('hello [[400]]')).rejects.toMatchObject({ nonRetryable: true });
    const after = await metricsNow();
    expect(sumOf(after, 'gateway_provider_operator_failures_total')).toBe(
      sumOf(before, 'gateway_provider_operator_failures_total'),
    );
    const refused = { provider: 'openai', operation: 'run', outcome: 'refused' };
    expect(
      sumOf(after, 'gateway_provider_calls_total', refused) - sumOf(before, 'gateway_provider_calls_total', refused),
    ).toBe(1);
  });
});

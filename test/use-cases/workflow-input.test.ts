// The generation workflow's input as admission sends it: it names the shape the run takes, so the run never asks the
// patch (a marker and a TemporalChangeVersion upsert per task; workflows/patches.ts).
import { expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import { earlyAdoptionShape, generationShape, lighterTaskShape } from '../../workflows/contracts/generation.types.ts';
import { balanceGenerationInput } from '../helpers/generation-input.ts';
import { upscaleRequest } from '../helpers/generation-workflow.ts';

it('names the latest shape: the lighter branch without a patch, the early look for a lost update', () => {
  const deps = { config: loadConfig({ NODE_ENV: 'test' }, []), catalog: loadCatalog() };
  const input = balanceGenerationInput(deps, { accountId: 'dev_1', body: upscaleRequest, idempotencyKey: null });
  expect(input.shape).toBe(generationShape);
  expect(generationShape).toBeGreaterThanOrEqual(Math.max(lighterTaskShape, earlyAdoptionShape));
});

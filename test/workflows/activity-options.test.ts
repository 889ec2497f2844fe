// No workflow retries an activity for ever: every activity proxy of every workflow is read here (the proxies made
// at load and those a run makes) and must carry a bound that really applies.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as Workflow from '@temporalio/workflow';
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { beforeAll, describe, expect, it, vi } from 'vitest';

const proxies = vi.hoisted(() => [] as { kind: 'remote' | 'local'; options: ActivityOptions | LocalActivityOptions }[]);

vi.mock('@temporalio/workflow', async (importOriginal) => {
  const actual = await importOriginal<typeof Workflow>();
  return {
    ...actual,
    proxyActivities: (options: ActivityOptions) => {
      proxies.push({ kind: 'remote', options });
      return actual.proxyActivities(options);
    },
    proxyLocalActivities: (options: LocalActivityOptions) => {
      proxies.push({ kind: 'local', options });
      return actual.proxyLocalActivities(options);
    },
    // Outside a workflow: the handlers a proxy's owner registers are not needed to read its options.
    setHandler: () => undefined,
  };
});

const workflowsDir = join(import.meta.dirname, '../../workflows');
const sources = readdirSync(workflowsDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));

/** Loads every workflow module (their proxies made at load), then makes the proxies a run makes. */
async function readProxies(): Promise<void> {
  for (const file of sources) await import(join(workflowsDir, file));
  const { providerActivities } = await import('../../workflows/generation/generation-routes.ts');
  const { settlementActivities } = await import('../../workflows/generation/activity-options.ts');
  const { upstreamJobOf } = await import('../../workflows/generation/upstream-job.ts');
  providerActivities({ timeoutSeconds: 120 } as never, 'queue');
  settlementActivities({ payment: { validBefore: '4102444800' } } as never);
  upstreamJobOf({ taskId: 'gen_x', modelId: 'fal/x' }, 'queue');
}

const callSites = sources
  .map((file) => readFileSync(join(workflowsDir, file), 'utf8'))
  .reduce((count, text) => count + (text.match(/\bproxy(Local)?Activities</g)?.length ?? 0), 0);

describe('activity options of every workflow', () => {
  beforeAll(readProxies);

  it('reads one set of options per proxy in the workflows', () => {
    expect(proxies.length).toBe(callSites);
  });

  // A remote activity's schedule-to-close is kept by the server. A local activity's is not enough: the SDK drops one
  // that expires between two local retries, so a local activity needs a number of attempts.
  it('every proxy has a bound that applies', () => {
    for (const { kind, options } of proxies) {
      const attempts = options.retry?.maximumAttempts;
      const bounded =
        (attempts !== undefined && attempts > 0) || (kind === 'remote' && options.scheduleToCloseTimeout !== undefined);
      expect(bounded, `${kind} activity options ${JSON.stringify(options)}`).toBe(true);
    }
  });
});

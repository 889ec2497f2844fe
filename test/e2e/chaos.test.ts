// The short fault suite inside `npm test` (the whole one is `npm run chaos`, which also holds inputs until the fault
// lands): 40 tasks from a client that retries with Idempotency-Keys, against real processes, while the worker process
// is killed (a) and PostgreSQL is killed and restarted (d). Every task ends, none is lost or charged twice, the ledger
// balances, every webhook arrives once.
import { expect, it } from 'vitest';
import { runScenario } from '../../chaos/run-scenario.ts';
import { scenario } from '../../chaos/scenarios.ts';
import { admissionFailedError } from '../../workflows/contracts/generation.types.ts';

const tasks = 40;

it.each(['a', 'd'])(
  'scenario %s: every task ends, none lost or charged twice, the ledger balances, webhooks delivered once',
  async (id) => {
    const result = await runScenario(scenario(id), { tasks, inputDelayMs: 500, holdInputs: false });
    console.log(
      `chaos ${id}: ${result.figures.completed} completed, ${result.clientErrorsDuringFault} client errors during ` +
        `the fault (${result.errorKinds.join(', ') || 'none'}), recovered in ${(result.recoveryMs / 1000).toFixed(1)} s; ` +
        `failed: ${JSON.stringify(result.figures.failureReasons)}`,
    );
    expect(result.figures.problems).toEqual([]);
    // A fault that lands while an admission commits can lose its answer after its row committed: that task ends
    // failed and released by design (its POST answered "nothing was charged"). Any other failure is a defect.
    const admissionsLost = result.figures.failureReasons[admissionFailedError] ?? 0;
    expect(result.figures.failureReasons).toEqual(admissionsLost > 0 ? { [admissionFailedError]: admissionsLost } : {});
    expect(admissionsLost).toBeLessThanOrEqual(tasks / 10);
    expect(result.figures).toMatchObject({
      tasks,
      completed: tasks - admissionsLost,
      failed: admissionsLost,
      lost: 0,
      doubleCharges: 0,
      webhookMessages: tasks,
      webhooksDeliveredOnce: tasks,
    });
  },
  180_000,
);

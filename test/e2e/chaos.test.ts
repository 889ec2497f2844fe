// The short fault suite inside `npm test` (the whole one is `npm run chaos`, which also holds inputs until the fault
// lands): 40 tasks from a client that retries with Idempotency-Keys, against real processes, while the worker process
// is killed (a) and PostgreSQL is killed and restarted (d). Every task ends, none is lost or charged twice, the ledger
// balances, every webhook arrives once.
import { expect, it } from 'vitest';
import { runScenario } from '../../chaos/run-scenario.ts';
import { scenario } from '../../chaos/scenarios.ts';

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
    // A fault that lands while an admission commits, however long the database stays away, loses no task: the row
    // its attempts committed is adopted and the retried POST attaches to it (workflows/generation/generation-admission.ts).
    expect(result.figures.failureReasons).toEqual({});
    expect(result.figures).toMatchObject({
      tasks,
      completed: tasks,
      failed: 0,
      lost: 0,
      doubleCharges: 0,
      webhookMessages: tasks,
      webhooksDeliveredOnce: tasks,
    });
  },
  180_000,
);

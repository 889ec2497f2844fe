// The output retention sweep pages through expired tasks: it calls its activity until a page comes back short, and
// never more than `maxPages` times in one run (the next scheduled run takes the rest). Real Temporal, a typed
// stand-in for the activity (test/e2e/output-expiry.test.ts runs the real one through its schedule).
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutputActivities } from '../../activities/output.activities.ts';
import { outputExpiryWorkflow } from '../../workflows/index.ts';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue } from '../helpers/temporal.ts';

let workflowBundle: WorkflowBundleWithSourceMap;
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  workflowBundle = await bundleWorkflows();
  env = await createTimeSkippingEnv();
});
afterAll(() => env?.teardown());

/** Runs one sweep over `expired` task ids; returns its report and the page sizes the activity was asked for. */
async function sweep(expired: string[], input: { limit: number; maxPages: number }) {
  const remaining = [...expired];
  const calls: number[] = [];
  const activities: OutputActivities = {
    async deleteExpiredOutputs({ limit }) {
      calls.push(limit);
      return { deleted: remaining.splice(0, limit) };
    },
  };
  const taskQueue = uniqueTaskQueue('output-expiry');
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle, activities });
  const report = await worker.runUntil(
    env.client.workflow.execute(outputExpiryWorkflow, { taskQueue, workflowId: taskQueue, args: [input] }),
  );
  return { report, calls, remaining };
}

const ids = (count: number) => Array.from({ length: count }, (_, index) => `gen_${index}`);

describe('outputExpiryWorkflow', () => {
  it.each([
    ['nothing expired: one call', 0, 1],
    ['a short page: one call', 2, 1],
    ['a full page, then an empty one', 3, 2],
    ['two full pages and a short one', 7, 3],
  ])('%s', async (_name, count, expectedCalls) => {
    const { report, calls, remaining } = await sweep(ids(count), { limit: 3, maxPages: 5 });
    expect(report).toEqual({ deleted: ids(count) });
    expect(calls).toEqual(Array(expectedCalls).fill(3));
    expect(remaining).toEqual([]);
  });

  it('stops at maxPages, leaving the rest to the next run', async () => {
    const { report, calls, remaining } = await sweep(ids(10), { limit: 3, maxPages: 2 });
    expect(report).toEqual({ deleted: ids(6) });
    expect(calls).toEqual([3, 3]);
    expect(remaining).toEqual(ids(10).slice(6));
  });
});

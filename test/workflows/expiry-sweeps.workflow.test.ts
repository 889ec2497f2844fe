// The expiry sweeps (uploads, outputs past their retention, and OAuth's expired grants and tokens) page through what expired: each calls its activity
// until a page comes back short, and never more than `maxPages` times in one run (the next scheduled run takes the
// rest). Real Temporal, a typed stand-in for each activity (the e2e tests run the real ones through their schedules).
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthActivities } from '../../activities/oauth.activities.ts';
import type { OutputActivities } from '../../activities/output.activities.ts';
import type { UploadActivities } from '../../activities/upload.activities.ts';
import { oauthSweepWorkflow, outputExpiryWorkflow, uploadExpiryWorkflow } from '../../workflows/index.ts';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue } from '../helpers/temporal.ts';

let workflowBundle: WorkflowBundleWithSourceMap;
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  workflowBundle = await bundleWorkflows();
  env = await createTimeSkippingEnv();
});
afterAll(() => env?.teardown());

type PageOf = (limit: number) => { deleted: string[] };
const sweeps = [
  {
    name: 'uploadExpiryWorkflow',
    workflow: uploadExpiryWorkflow,
    prefix: 'upl',
    activities: (page: PageOf): UploadActivities => ({ deleteExpiredUploads: async ({ limit }) => page(limit) }),
  },
  {
    name: 'outputExpiryWorkflow',
    workflow: outputExpiryWorkflow,
    prefix: 'gen',
    activities: (page: PageOf): OutputActivities => ({ deleteExpiredOutputs: async ({ limit }) => page(limit) }),
  },
  {
    name: 'oauthSweepWorkflow',
    workflow: oauthSweepWorkflow,
    prefix: 'oauth',
    activities: (page: PageOf): OAuthActivities => ({ sweepOAuthGrants: async ({ limit }) => page(limit) }),
  },
];

describe.each(sweeps)('$name', ({ workflow, prefix, activities }) => {
  /** Runs one sweep over `expired` ids; returns its report and the page sizes the activity was asked for. */
  async function sweep(expired: string[], input: { limit: number; maxPages: number }) {
    const remaining = [...expired];
    const calls: number[] = [];
    const page = (limit: number) => (calls.push(limit), { deleted: remaining.splice(0, limit) });
    const taskQueue = uniqueTaskQueue(prefix);
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle,
      activities: activities(page),
    });
    const report = await worker.runUntil(
      env.client.workflow.execute(workflow, { taskQueue, workflowId: taskQueue, args: [input] }),
    );
    return { report, calls, remaining };
  }

  const ids = (count: number) => Array.from({ length: count }, (_, index) => `${prefix}_${index}`);

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

// The harness every workflow test follows: bundle once per file, a worker per test, real Temporal.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSystemActivities } from '../../activities/system.activities.ts';
import type { SystemActivities } from '../../activities/system.activities.ts';
import { pingWorkflow } from '../../workflows/index.ts';
import { useDevServerAndDatabase } from '../helpers/stack.ts';
import { bundleWorkflows, createTimeSkippingEnv, uniqueTaskQueue } from '../helpers/temporal.ts';

let workflowBundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  workflowBundle = await bundleWorkflows();
});

describe('pingWorkflow on the time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(() => env?.teardown());

  it('waits a day on a durable timer without the test waiting, then runs its activity', async () => {
    const calls: string[] = [];
    // A typed stand-in: the real activities' signature, no database needed for the timer path.
    const activities: SystemActivities = {
      async checkDatabase() {
        calls.push('checkDatabase');
        return { database: 'stand-in', checkedAt: new Date().toISOString() };
      },
    };
    const taskQueue = uniqueTaskQueue('ping-timer');
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle, activities });
    const startedAt = await env.currentTimeMs();
    const wallStart = Date.now();

    const result = await worker.runUntil(
      env.client.workflow.execute(pingWorkflow, {
        taskQueue,
        workflowId: `ping-${taskQueue}`,
        args: [{ delay: '1 day' }],
      }),
    );

    expect(result.database).toBe('stand-in');
    expect(calls).toEqual(['checkDatabase']);
    expect((await env.currentTimeMs()) - startedAt).toBeGreaterThanOrEqual(24 * 60 * 60 * 1000);
    expect(Date.now() - wallStart).toBeLessThan(30_000);
  });
});

describe('pingWorkflow on the dev server with the real activities', () => {
  const stack = useDevServerAndDatabase();

  it('reaches PostgreSQL through the worker', async () => {
    const { env, database } = stack;
    const taskQueue = uniqueTaskQueue('ping-dev');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle,
      activities: createSystemActivities({ prisma: database.prisma }),
    });
    const handle = await env.client.workflow.start(pingWorkflow, {
      taskQueue,
      workflowId: `ping-${taskQueue}`,
      args: [{}],
    });
    const result = await worker.runUntil(handle.result());

    expect(result.database).toMatch(/^PostgreSQL \d+/);
    expect(Date.parse(result.checkedAt)).toBeGreaterThan(Date.now() - 60_000);
    // The history is durable on the server: the activity ran exactly once.
    const history = await handle.fetchHistory();
    const scheduled = history.events?.filter((event) => event.activityTaskScheduledEventAttributes) ?? [];
    expect(scheduled).toHaveLength(1);
  });
});

// The service's workflow bundle is made in a child process: webpack never loads in the service, whose memory it
// would otherwise keep for its whole life; the bundle still runs workflows and the bundler's log lines reach us.
import { createRequire } from 'node:module';
import type { LogLevel } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import type { SystemActivities } from '../../activities/system.activities.ts';
import { bundleWorkflowsApart } from '../../src/use-cases/temporal/workflow-bundle.ts';
import { pingWorkflow } from '../../workflows/index.ts';
import { createTimeSkippingEnv, uniqueTaskQueue } from '../helpers/temporal.ts';

const loaded = (fragment: string) =>
  Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes(fragment));

function recordingLogger() {
  const lines: { level: LogLevel; message: string }[] = [];
  const log = (level: LogLevel) => (message: string) => void lines.push({ level, message });
  return {
    lines,
    logger: {
      log: (level: LogLevel, message: string) => void lines.push({ level, message }),
      trace: log('TRACE'),
      debug: log('DEBUG'),
      info: log('INFO'),
      warn: log('WARN'),
      error: log('ERROR'),
    },
  };
}

describe('bundleWorkflowsApart', () => {
  it('bundles in a child process: the bundle runs a workflow, webpack never loads here, its logs reach us', async () => {
    const { lines, logger } = recordingLogger();
    const bundle = await bundleWorkflowsApart(logger);

    expect(lines).toContainEqual({ level: 'INFO', message: 'Workflow bundle created' });
    // The SDK's libraries and the workflows are loaded once per worker thread, not once per workflow.
    const preloaded = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(bundle.code)?.[1];
    for (const module of ['@temporalio/workflow', '@temporalio/common', './workflows/index.ts'])
      expect(preloaded, module).toContain(`/*! ${module} */`);
    const env = await createTimeSkippingEnv();
    try {
      const activities: SystemActivities = {
        async checkDatabase() {
          return { database: 'stand-in', checkedAt: new Date().toISOString() };
        },
      };
      const taskQueue = uniqueTaskQueue('bundle-apart');
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: bundle,
        activities,
      });
      const result = await worker.runUntil(
        env.client.workflow.execute(pingWorkflow, { taskQueue, workflowId: `ping-${taskQueue}`, args: [{}] }),
      );
      expect(result.database).toBe('stand-in');
    } finally {
      await env.teardown();
    }
    // Importing @temporalio/worker loads webpack's index (its parts load lazily); bundling would load its compiler.
    expect(loaded('/webpack/lib/Compiler.js')).toEqual([]);
    expect(loaded('/@swc/core/')).toEqual([]);
  });

  it("rejects with the bundler's reason when bundling fails", async () => {
    const { logger } = recordingLogger();
    await expect(bundleWorkflowsApart(logger, [], '/nonexistent/workflows/index.ts')).rejects.toThrow(
      /^bundling the workflows failed: .*ENOENT/,
    );
  });
});

// What scripts/workflow-thread-preload.cjs relies on in the Temporal SDK: a version bump that moves it fails here, so
// the preload is checked again (otherwise the service's workflow thread would silently run as before).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { workflowThreadPreload } from '../../scripts/service-node-options.mjs';

const require = createRequire(import.meta.url);
type Creator = { create: (...args: unknown[]) => Promise<unknown> };
const preload = require('../../scripts/workflow-thread-preload.cjs') as {
  withoutDeadlockGuard: (exports: { ReusableVMWorkflowCreator: Creator }) => { ReusableVMWorkflowCreator: Creator };
};
const sdkFile = (path: string) => readFileSync(require.resolve(`@temporalio/worker/lib/workflow/${path}`), 'utf8');

describe('the workflow thread preload', () => {
  it('is written for @temporalio/worker 1.24: its promise hook is installed by GlobalHandlers.setPromiseHook', () => {
    expect(require('@temporalio/worker/package.json').version, 'check the preload against the new SDK').toMatch(
      /^1\.24\./,
    );
    expect(sdkFile('vm-shared.js')).toMatch(
      /install\(\) \{\s+if \(!this\.installed\) \{[^}]*this\.setPromiseHook\(\);/,
    );
    // With no hook installed, the VM reports stack traces as not enabled (the query then says so).
    expect(sdkFile('reusable-vm.js')).toContain('stackTracesEnabled: vm_shared_1.globalHandlers.promiseHookInstalled');
    expect(require('@temporalio/worker/lib/workflow/vm-shared.js').GlobalHandlers.prototype.setPromiseHook).toBeTypeOf(
      'function',
    );
  });

  it('is written for @temporalio/worker 1.24: the thread calls ReusableVMWorkflowCreator.create with the timeout', () => {
    // The workflow thread makes its creator with the worker's isolateExecutionTimeout as the second argument, and the
    // creator passes it as node:vm's `timeout` to every call into the sandbox.
    expect(sdkFile('workflow-worker-thread.js')).toMatch(
      /reusable_vm_1\.ReusableVMWorkflowCreator\.create\(input\.workflowBundle, input\.isolateExecutionTimeoutMs,/,
    );
    expect(sdkFile('reusable-vm.js')).toMatch(/static async create\(workflowBundle, isolateExecutionTimeoutMs,/);
    expect(sdkFile('reusable-vm.js')).toMatch(/runInContext\(context, \{\s+timeout: isolateExecutionTimeoutMs,/);
  });

  it('makes the workflow creator call into its sandbox with no timeout (no watchdog thread per call)', async () => {
    const calls: unknown[][] = [];
    const trimmed = preload.withoutDeadlockGuard({
      ReusableVMWorkflowCreator: { create: async (...args: unknown[]) => calls.push(args) },
    });
    await trimmed.ReusableVMWorkflowCreator.create('bundle', 5_000, ['activity'], undefined);
    expect(calls).toEqual([['bundle', undefined, ['activity'], undefined]]);
  });

  const hookInstalledInThread = (env: NodeJS.ProcessEnv) =>
    new Promise<boolean>((resolve, reject) => {
      const thread = new Worker(
        `const { globalHandlers } = require(${JSON.stringify(require.resolve('@temporalio/worker/lib/workflow/vm-shared.js'))});
         globalHandlers.install();
         require('node:worker_threads').parentPort.postMessage(globalHandlers.promiseHookInstalled);`,
        { eval: true, execArgv: ['--require', workflowThreadPreload], env },
      );
      thread.once('message', (installed: boolean) => void thread.terminate().then(() => resolve(installed)));
      thread.once('error', reject);
    });

  it('leaves the promise hook out of a thread, unless TEMPORAL_WORKFLOW_STACK_TRACES=true keeps it', async () => {
    expect(await hookInstalledInThread({ ...process.env, TEMPORAL_WORKFLOW_STACK_TRACES: '' })).toBe(false);
    expect(await hookInstalledInThread({ ...process.env, TEMPORAL_WORKFLOW_STACK_TRACES: 'true' })).toBe(true);
  });

  const creatorInThread = (env: NodeJS.ProcessEnv) =>
    new Promise<string>((resolve, reject) => {
      const thread = new Worker(
        `const { ReusableVMWorkflowCreator } = require(${JSON.stringify(require.resolve('@temporalio/worker/lib/workflow/reusable-vm.js'))});
         require('node:worker_threads').parentPort.postMessage(ReusableVMWorkflowCreator.create.name);`,
        { eval: true, execArgv: ['--require', workflowThreadPreload], env },
      );
      thread.once('message', (name: string) => void thread.terminate().then(() => resolve(name)));
      thread.once('error', reject);
    });

  it('leaves the deadlock guard out of a thread, unless TEMPORAL_WORKFLOW_DEADLOCK_GUARD=true keeps it', async () => {
    expect(await creatorInThread({ ...process.env, TEMPORAL_WORKFLOW_DEADLOCK_GUARD: '' })).toBe('createUnguarded');
    expect(await creatorInThread({ ...process.env, TEMPORAL_WORKFLOW_DEADLOCK_GUARD: 'true' })).toBe('create');
  });
});

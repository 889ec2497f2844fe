// Preloaded into the service's threads (NODE_OPTIONS --require, scripts/service-node-options.mjs). In the Temporal SDK's
// workflow thread it leaves out two costs of every task that no SDK option turns off (temporalio/sdk-typescript#1587):
// - the promise hook that records a source-mapped stack for every promise workflow code makes, whose only use is the
//   stack-trace query (the Web UI's "Stack Trace" tab): a third of that thread's CPU per task.
//   TEMPORAL_WORKFLOW_STACK_TRACES=true keeps it.
// - the deadlock guard: a watchdog thread made and joined around every call into the workflow sandbox (node:vm's
//   `timeout`, about 60 µs a call against 3, dozens of calls a task; nodejs/node#47739), whose only use is to stop a
//   workflow that loops for ever. TEMPORAL_WORKFLOW_DEADLOCK_GUARD=true keeps it.
// It relies on GlobalHandlers.setPromiseHook in lib/workflow/vm-shared.js and ReusableVMWorkflowCreator.create in
// lib/workflow/reusable-vm.js of @temporalio/worker 1.24 (test/orchestration/workflow-thread-preload.test.ts fails
// when an upgrade moves them).
const Module = require('node:module');
const { isMainThread } = require('node:worker_threads');

const sdkFile = (name) => new RegExp(`[\\\\/]@temporalio[\\\\/]worker[\\\\/]lib[\\\\/]workflow[\\\\/]${name}\\.js$`);

/** Makes GlobalHandlers install no promise hook: the SDK then reports stack traces as not enabled. */
function withoutPromiseHook(exports) {
  const handlers = exports.GlobalHandlers?.prototype;
  if (typeof handlers?.setPromiseHook !== 'function') return exports;
  handlers.setPromiseHook = function setPromiseHook() {};
  return exports;
}

/** Makes the workflow creator call into its sandbox with no timeout, so node:vm starts no watchdog per call. */
function withoutDeadlockGuard(exports) {
  const creator = exports.ReusableVMWorkflowCreator;
  if (typeof creator?.create !== 'function') return exports;
  const create = creator.create;
  creator.create = function createUnguarded(bundle, _isolateExecutionTimeoutMs, ...rest) {
    return create.call(this, bundle, undefined, ...rest);
  };
  return exports;
}

const trims = [
  { module: 'vm-shared', trim: withoutPromiseHook, keep: 'TEMPORAL_WORKFLOW_STACK_TRACES' },
  { module: 'reusable-vm', trim: withoutDeadlockGuard, keep: 'TEMPORAL_WORKFLOW_DEADLOCK_GUARD' },
].filter(({ keep }) => process.env[keep] !== 'true');

if (!isMainThread && trims.length > 0) {
  const load = Module._load;
  Module._load = function loadTrimmed(request, parent, isMain) {
    const exports = load.call(this, request, parent, isMain);
    const wanted = trims.find(({ module }) => request.endsWith(module) || request.endsWith(`${module}.js`));
    if (!wanted) return exports;
    const resolved = Module._resolveFilename(request, parent, isMain);
    return sdkFile(wanted.module).test(resolved) ? wanted.trim(exports) : exports;
  };
}

module.exports = { withoutPromiseHook, withoutDeadlockGuard };

// Preloaded into the service's threads (NODE_OPTIONS --require, scripts/service-node-options.mjs). In the Temporal SDK's
// workflow thread it leaves out the promise hook that records a source-mapped stack for every promise workflow code
// makes, whose only use is the stack-trace query (the Web UI's "Stack Trace" tab): a third of that thread's CPU per
// task. TEMPORAL_WORKFLOW_STACK_TRACES=true keeps it. No SDK option does this (temporalio/sdk-typescript#1587); it
// relies on GlobalHandlers.setPromiseHook in lib/workflow/vm-shared.js of @temporalio/worker 1.24
// (test/orchestration/workflow-thread-preload.test.ts fails when an upgrade moves it).
const Module = require('node:module');
const { isMainThread } = require('node:worker_threads');

const vmShared = /[\\/]@temporalio[\\/]worker[\\/]lib[\\/]workflow[\\/]vm-shared\.js$/;

/** Makes GlobalHandlers install no promise hook: the SDK then reports stack traces as not enabled. */
function withoutPromiseHook(exports) {
  const handlers = exports.GlobalHandlers?.prototype;
  if (typeof handlers?.setPromiseHook !== 'function') return exports;
  handlers.setPromiseHook = function setPromiseHook() {};
  return exports;
}

if (!isMainThread && process.env.TEMPORAL_WORKFLOW_STACK_TRACES !== 'true') {
  const load = Module._load;
  Module._load = function loadTrimmed(request, parent, isMain) {
    const exports = load.call(this, request, parent, isMain);
    if (!request.endsWith('vm-shared') && !request.endsWith('vm-shared.js')) return exports;
    const resolved = Module._resolveFilename(request, parent, isMain);
    return vmShared.test(resolved) ? withoutPromiseHook(exports) : exports;
  };
}

module.exports = { withoutPromiseHook };

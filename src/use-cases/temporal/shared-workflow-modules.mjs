// What the workflow bundle loads once per worker thread instead of once per workflow (the SDK's `preloadModules`):
// the SDK's workflow and common libraries and the gateway's workflows themselves. With the reused V8 context, every
// other module is evaluated again for each workflow the worker runs, and kept while it is cached: most of a task's
// workflow-thread time and of a cached workflow's memory. They are shared (and frozen), so none may keep state of its
// own at module scope: a workflow's state lives in its function (test/codebase/workflow-modules.test.ts checks).
export const sharedWorkflowModules = (workflowsPath) => ['@temporalio/workflow', '@temporalio/common', workflowsPath];

// Every workflow, exported from one module: the worker bundles this file.
export { pingWorkflow } from './ping.workflow.ts';

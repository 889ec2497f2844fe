// Every workflow, exported from one module: the worker bundles this file.
export { depositScanWorkflow } from './deposit-scan.workflow.ts';
export { depositWorkflow } from './deposit.workflow.ts';
export { echoWorkflow } from './echo.workflow.ts';
export { generationWorkflow } from './generation/generation.workflow.ts';
export { oauthSweepWorkflow } from './expiry/oauth-sweep.workflow.ts';
export { outputExpiryWorkflow } from './expiry/output-expiry.workflow.ts';
export { pingWorkflow } from './ping.workflow.ts';
export { replayBatchWorkflow } from './replay-batch.workflow.ts';
export { taskReconcilerWorkflow } from './task-reconciler.workflow.ts';
export { topUpWorkflow } from './top-up.workflow.ts';
export { uploadExpiryWorkflow } from './expiry/upload-expiry.workflow.ts';
export { webhookDeliveryWorkflow } from './webhooks/webhook-delivery.workflow.ts';

import { WorkflowNotFoundError } from '@temporalio/client';
import { upstreamCallbackSignal } from '../../../workflows/contracts/generation.types.ts';
import type { TemporalDeps } from './generation-workflows.ts';

/** Tells the task's workflow that its upstream job announced its end; false when the workflow has ended already. */
export async function signalUpstreamCallback(temporal: TemporalDeps, taskId: string, jobId: string): Promise<boolean> {
  try {
    await temporal.client.workflow.getHandle(taskId).signal(upstreamCallbackSignal, { jobId });
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

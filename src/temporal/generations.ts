// The api's side of the generation workflow: admission by update-with-start, and the live state query.
import { type Client, WithStartWorkflowOperation } from '@temporalio/client';
import { type AdmitResult, admitUpdate, type GenerationInput, type generationWorkflow, stateQuery } from '../../workflows/generation.workflow.ts';
import type { TaskView } from '../generation/task-view.ts';

export interface TemporalDeps {
  client: Client;
  taskQueue: string;
}

/**
 * Starts the task's workflow (or joins it: a retried request with the same Idempotency-Key maps to the same
 * workflow id) and waits only for admission: the reservation and the task row are durable when this returns.
 */
export async function admitGeneration(temporal: TemporalDeps, input: GenerationInput): Promise<AdmitResult> {
  const start = new WithStartWorkflowOperation<typeof generationWorkflow>('generationWorkflow', {
    workflowId: input.taskId,
    taskQueue: temporal.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return temporal.client.workflow.executeUpdateWithStart(admitUpdate, { args: [{ requestHash: input.requestHash }], startWorkflowOperation: start });
}

/** The running task as its workflow sees it; null when the workflow cannot answer (the row is then the truth). */
export async function liveTaskState(temporal: TemporalDeps, taskId: string): Promise<TaskView | null> {
  try {
    return await temporal.client.workflow.getHandle(taskId).query(stateQuery);
  } catch {
    return null;
  }
}

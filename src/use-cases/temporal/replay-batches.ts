// genctl's side of a batch replay: starts its workflow (or attaches to the run under way) and reads its progress.
import { type Client, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { progressQuery } from '../../../workflows/contracts/replay-batch.types.ts';
import type {
  ReplayBatchInput,
  ReplayBatchWorkflow,
  ReplayProgress,
} from '../../../workflows/contracts/replay-batch.types.ts';

export type ReplayBatchHandle = WorkflowHandle<ReplayBatchWorkflow>;

/**
 * A batch under way is attached to, not started twice; a batch that ended runs again (it then finds its tasks
 * replayed already and replays nothing). `summary` is what the Web UI's list shows for it.
 */
export async function startReplayBatch(
  client: Client,
  taskQueue: string,
  input: ReplayBatchInput,
  summary: string,
): Promise<ReplayBatchHandle> {
  return client.workflow.start<ReplayBatchWorkflow>('replayBatchWorkflow', {
    workflowId: input.batchId,
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    staticSummary: summary,
  });
}

export const replayProgress = (handle: ReplayBatchHandle): Promise<ReplayProgress> => handle.query(progressQuery);

/** Whether the batch of that id is running (a command run again attaches to it). */
export async function isBatchRunning(client: Client, batchId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(batchId).describe()).status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

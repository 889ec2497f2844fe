// What the reconciler asks of a workflow before repairing what it left: its status, or that it never existed.
import { type Client, WorkflowNotFoundError } from '@temporalio/client';

/** The workflow's status (`RUNNING`, `COMPLETED`, `TERMINATED`, …), or `NOT_FOUND`. */
export async function workflowStatus(client: Client, workflowId: string): Promise<string> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'NOT_FOUND';
    throw error;
  }
}

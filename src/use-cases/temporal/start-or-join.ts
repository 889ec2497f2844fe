// "Start or join, then wait": a request that starts a workflow by a key of its own (a task id, a payment, a transaction)
// starts it, or joins the run of that id a retry or another api process started, then waits a bounded time for what it
// answers. Generation admission waits for its admit update (update-with-start), top-ups and deposit claims for the
// workflow's result; past the bound the workflow goes on and a retry joins it.
import {
  type Client,
  type WithStartWorkflowOperation,
  type Workflow,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';

/**
 * Starts the workflow, or joins the run of its id (`workflowIdConflictPolicy` `USE_EXISTING`); false when the id is
 * taken and not joined: a closed run whose outcome stands under the reuse policy (or a running one, under `FAIL`).
 */
export async function startOrJoin<W extends Workflow>(
  client: Client,
  workflowType: string,
  options: WorkflowStartOptions<W>,
): Promise<boolean> {
  try {
    await client.workflow.start<W>(workflowType, options);
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}

/**
 * Starts or joins the workflow and waits up to `withinMs` for its answer to the update, in one round trip
 * (update-with-start); past that the wait fails (a deadline error) and the workflow goes on.
 */
export function startOrJoinWithUpdate<W extends Workflow, Ret, Args extends unknown[]>(
  client: Client,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
  start: WithStartWorkflowOperation<W>,
  withinMs: number,
): Promise<Ret> {
  return client.withDeadline(Date.now() + withinMs, () =>
    client.workflow.executeUpdateWithStart(update, { args, startWorkflowOperation: start }),
  );
}

/**
 * The workflow's result if it closes within `withinMs`, else null; its failure is thrown. The long poll is cut when the wait is up, leaving no rejection behind.
 */
export async function resultWithin<T>(
  client: Client,
  workflowId: string,
  withinMs: number,
): Promise<{ result: T } | null> {
  const controller = new AbortController();
  const ended = client
    .withAbortSignal(controller.signal, () => client.workflow.getHandle(workflowId).result() as Promise<T>)
    .then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), withinMs).unref());
  const first = await Promise.race([ended, timeout]).finally(() => controller.abort());
  if (first && 'error' in first) throw first.error;
  return first;
}

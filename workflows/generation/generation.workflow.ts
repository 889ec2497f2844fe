// One workflow per generation task (workflow id = task id). Whatever goes wrong once admission may have reserved
// funds (a failure, a timeout, a cancellation, even during admission) releases them and fails the task, in a
// non-cancellable scope: a cancelled workflow must still refund.
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { GenerationActivities, Settled } from '../../activities/generation.activities.ts';
import type { TaskView } from '../../src/generations/task-view.ts';
import { compensation, local, settlementActivities } from './activity-options.ts';
import { type AdmitUpdateHandler, awaitAdmission, handleAdmitUpdate } from './generation-admission.ts';
import { callerSafeError } from './generation-failures.ts';
import { runOnRoutes, type Served } from './generation-routes.ts';
import {
  cancelledError,
  earlyAdoptionShape,
  type GenerationInput,
  startedWithShape,
  stateQuery,
} from '../contracts/generation.types.ts';
import { genStatus, type GenStatus } from '../contracts/search-attributes.ts';
import { providerSlugOf, providerTaskQueue } from '../contracts/task-queues.ts';
import { type UpstreamJob, upstreamJobOf } from './upstream-job.ts';
import { deliver, notify } from '../webhooks/webhook-notify.ts';
import { takesLighterTask } from '../patches.ts';

const { markProcessing, settleTask } = proxyLocalActivities<GenerationActivities>(local);
const { failTask } = proxyActivities<GenerationActivities>(compensation);
// Once a payment has moved, recording the task's completion may wait out a long outage, as a refund does.
const { settleTask: completePaidTask } = proxyActivities<GenerationActivities>(compensation);

/** Keeps GenStatus current for the Web UI's list. */
function recordStatus(status: GenStatus) {
  upsertSearchAttributes([{ key: genStatus, value: status }]);
}

type EndedTask = TaskView & { status: 'completed' | 'failed' };
const hasEnded = (task: TaskView | null): task is EndedTask =>
  task?.status === 'completed' || task?.status === 'failed';

/** A task that ended already (in an earlier run of this id, or failed by the reconciler) is not run again. */
async function endedBefore(task: EndedTask): Promise<TaskView> {
  recordStatus(task.status);
  await condition(allHandlersFinished);
  return task;
}

/** Refused at admission (no funds, a busy payer): no task, nothing reserved; the workflow completes without one. */
function refused(): null {
  recordStatus('refused');
  return null;
}

/**
 * Admission marks a task processing as it admits it; a row adopted after a lost update is marked here. GenStatus says
 * `processing` from the start (runs recorded before the patch started `queued`, and said so here).
 */
async function startProcessing(input: GenerationInput, markedAtAdmission: TaskView | undefined): Promise<TaskView> {
  const view = markedAtAdmission ?? (await markProcessing(input.taskId));
  if (!takesLighterTask(input)) recordStatus('processing');
  return view;
}

/**
 * Not cancellable: a cancel arriving now must not race the charge. An x402 payment moves on chain first, and only
 * now: a task that failed before this point never takes the payer's money.
 */
function settle(input: GenerationInput, { produced, servedBy }: Served): Promise<Settled> {
  return CancellationScope.nonCancellable(async () => {
    // Settling also writes the final event's message: no notify step of its own (see notifyEnded). Runs recorded
    // before the patch got the view alone (their settling started the deliveries).
    const inline = takesLighterTask(input);
    const settled = (result: Settled) => (inline ? result : { task: result as unknown as TaskView, webhook: null });
    const delivered = { taskId: input.taskId, modelId: input.modelId, ...produced, servedBy, notify: true };
    if (!input.payment) return settled(await settleTask(delivered));
    await settlementActivities(input).settlePayment(delivered);
    return settled(await completePaidTask(delivered));
  });
}

/**
 * Releases whatever admission reserved and fails the task, even if the workflow is being cancelled; an admission that
 * left no task rethrows: the workflow fails with the cause, as there is no task to report.
 */
async function compensate(
  input: GenerationInput,
  error: unknown,
  { admitting, upstream }: { admitting: AdmitUpdateHandler; upstream: UpstreamJob },
): Promise<TaskView | null> {
  // A cancelled task says so, whatever the step it interrupted then failed with (an abandoned download, …).
  const message = CancellationScope.current().consideredCancelled ? cancelledError : callerSafeError(error, input);
  const view = await CancellationScope.nonCancellable(async () => {
    await upstream.cancelUncollected();
    return failTask({ taskId: input.taskId, error: message });
  });
  // An admission that failed after its row committed left a task (now failed): it is reported like any other.
  if (admitting.admission().state !== 'admitted' && !view) {
    recordStatus('failed');
    throw error;
  }
  return view;
}

/** The first attempts run here; a failed one continues in a delivery workflow, so this one closes at once. */
async function notifyEnded(input: GenerationInput, view: TaskView | null): Promise<void> {
  if (!hasEnded(view)) return;
  const event = `generation.${view.status}` as const;
  await notify(
    { event, subject: input.taskId, accountId: input.accountId, taskId: input.taskId, data: view },
    takesLighterTask(input),
  );
}

export async function generationWorkflow(input: GenerationInput): Promise<TaskView | null> {
  let view: TaskView | null = null;
  // The message settling wrote, to deliver once the status is recorded.
  let settled: Settled | undefined;
  setHandler(stateQuery, () => view);
  const admitting = handleAdmitUpdate(input, (admitted) => {
    view ??= admitted;
  });
  // Made before admission: the upstream's callback handler must be there before the job id is.
  const providerQueue = providerTaskQueue(workflowInfo().taskQueue, providerSlugOf(input.modelId));
  const upstream = upstreamJobOf({ taskId: input.taskId, modelId: input.modelId }, providerQueue);
  try {
    // 1. Admit: the api is answered from the update; the long tail follows.
    const admitted = await awaitAdmission(admitting, startedWithShape(input, earlyAdoptionShape));
    if (!admitted) return refused();
    if (hasEnded(admitted.task)) return await endedBefore(admitted.task);
    // 2. Processing (marked by admission's own step).
    view = await startProcessing(input, admitted.processing);
    // 3. Run on the model's routes: the provider activity stores the outputs as it collects them.
    const served = await runOnRoutes(input, upstream);
    // 4. Settle: charge the reservation (or settle the x402 payment) and complete the task.
    settled = await settle(input, served);
    view = settled.task;
  } catch (error) {
    // Compensation: release what admission reserved and end `failed`.
    view = await compensate(input, error, { admitting, upstream });
  }
  recordStatus(view?.status ?? 'failed');
  // 5. Notify the account's webhooks that the task ended (settling wrote the message, for a task that completed).
  if (settled) await deliver(settled.webhook, `generation.${view?.status}`);
  else await notifyEnded(input, view);
  await condition(allHandlersFinished);
  return view;
}

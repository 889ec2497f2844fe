// Admission of a generation task: the admit update (update-with-start) reserves once, however many updates a retried
// POST sends; the workflow waits for its decision, and adopts the row of an update that never reached it.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { GenerationActivities } from '../../activities/generation.activities.ts';
import type { TaskView } from '../../src/generations/task-view.ts';
import { admit, fast } from './activity-options.ts';
import {
  admitUpdate,
  type AdmitUpdateResult,
  type GenerationInput,
  type TaskAdmission,
} from '../contracts/generation.types.ts';

const { admitTask } = proxyLocalActivities<GenerationActivities>(admit);
const { findAdmittedTask, adoptOrAbandonAdmission } = proxyActivities<GenerationActivities>(fast);

type Refusal = Exclude<TaskAdmission, { outcome: 'admitted' }>;

// Far longer than an admit update takes (the api gives up on it within a minute): past it, the update was lost.
const admissionTimeout = '5 minutes';
// A run still waiting this long looks for a row: only an update that was lost (Temporal died after its step
// committed) can have left one, so it is adopted at once rather than after the timeout; none, the wait goes on.
const lostUpdateCheck = '30 seconds';

/** An admitted task as the api was told (`task`: queued), and as admission left it (`processing`, when it did). */
export type Admitted = { state: 'admitted'; task: TaskView; processing?: TaskView };

/** How far admission got; the reservation is shared by every update a retried POST sends. */
export type Admission =
  | { state: 'pending' }
  | { state: 'reserving'; decided: Promise<Admission> }
  | Admitted
  | { state: 'refused'; refusal: Refusal }
  | { state: 'failed' };

/** What handleAdmitUpdate leaves the workflow: how far admission got, and a way to adopt a row whose update was lost. */
export interface AdmitUpdateHandler {
  admission: () => Admission;
  adopt: () => void;
  /** Adopts the row a lost update committed, if there is one (a pending run cannot have any other). */
  adoptIfCommitted: () => Promise<void>;
}

async function admissionOf(reservation: Promise<TaskAdmission>): Promise<Admission> {
  try {
    const admitted = await reservation;
    return admitted.outcome === 'admitted'
      ? { state: 'admitted', task: admitted.task, processing: admitted.processing }
      : { state: 'refused', refusal: admitted };
  } catch {
    return { state: 'failed' };
  }
}

/** A row committed by an admission whose update never reached this workflow: adopted as if admitted; none, failed. */
const adoption = async (taskId: string): Promise<TaskAdmission> => {
  const task = await findAdmittedTask(taskId);
  if (!task) throw new Error(`no admitted task ${taskId}`);
  return { outcome: 'admitted', task };
};

/**
 * Admission attempts that ran out (the database away longer than they last, as on a loaded machine) may have committed
 * the row all the same: it is adopted, once the database answers, rather than failed, and a tombstone is left if none.
 */
const adoptedOrAbandoned = async (taskId: string): Promise<TaskAdmission> => {
  const task = await adoptOrAbandonAdmission(taskId);
  if (!task) throw new Error(`no task ${taskId} was admitted`);
  return { outcome: 'admitted', task };
};

// Histories recorded before the adoption after attempts ran out fail such an admission at once, and replay so.
const adoptAfterAttemptsPatch = 'admission-adopted-after-attempts';

/** The admit update's answer once admission has decided: a failed one is the api's to report, not a refusal. */
function answerOf(decided: Admission): AdmitUpdateResult {
  switch (decided.state) {
    case 'admitted':
      return { outcome: 'admitted', task: decided.task };
    case 'refused':
      return decided.refusal;
    default:
      throw ApplicationFailure.nonRetryable('The generation could not be admitted; try again.', 'AdmissionFailed');
  }
}

/**
 * Answers the admit update (update-with-start). Returns how far admission got, and `adopt`: for a workflow whose
 * update was lost (Temporal died after the update's local activity committed), it takes over the row, if any.
 */
export function handleAdmitUpdate(input: GenerationInput, onAdmitted: (task: TaskView) => void): AdmitUpdateHandler {
  let admission: Admission = { state: 'pending' };
  const decide = (reservation: Promise<TaskAdmission>, attempts = false) => {
    const decided = admissionOf(reservation).then((outcome) => {
      // The update under way answers "unavailable" now; a retried POST's update waits for the row or the tombstone.
      if (attempts && outcome.state === 'failed' && patched(adoptAfterAttemptsPatch)) {
        decide(adoptedOrAbandoned(input.taskId));
        return outcome;
      }
      admission = outcome;
      if (outcome.state === 'admitted') onAdmitted(outcome.task);
      return outcome;
    });
    admission = { state: 'reserving', decided };
  };
  setHandler(admitUpdate, async ({ requestHash }): Promise<AdmitUpdateResult> => {
    // A retried POST with the same Idempotency-Key but another body is a different request.
    if (requestHash !== input.requestHash) return { outcome: 'conflict' };
    // admitTask finds a row committed earlier (a retried POST after a lost update) and reserves nothing more.
    if (admission.state === 'pending') decide(admitTask(input), true);
    return answerOf(admission.state === 'reserving' ? await admission.decided : admission);
  });
  return {
    admission: () => admission,
    adopt: () => {
      if (admission.state === 'pending') decide(adoption(input.taskId));
    },
    adoptIfCommitted: async () => {
      if (admission.state !== 'pending') return;
      const task = await findAdmittedTask(input.taskId);
      // An update may have come meanwhile: its decision stands.
      if (task && admission.state === 'pending') decide(Promise.resolve({ outcome: 'admitted', task }));
    },
  };
}

/**
 * Waits until the admit update has decided: the task, or null for a refusal once the api has its answer. An update
 * that never comes (lost with Temporal) does not keep it waiting for ever: the row it may have committed is adopted.
 * `checksEarly` (runs started with earlyAdoptionShape): a row is looked for after 30 s already.
 */
export async function awaitAdmission(
  { admission, adopt, adoptIfCommitted }: AdmitUpdateHandler,
  checksEarly: boolean,
): Promise<Admitted | null> {
  const decided = () => !['pending', 'reserving'].includes(admission().state);
  if (checksEarly && !(await condition(decided, lostUpdateCheck))) await adoptIfCommitted();
  if (!(await condition(decided, admissionTimeout))) adopt();
  await condition(decided);
  // A failure, not an Error: an Error fails only the workflow task, which would then retry for ever.
  const decision = admission();
  if (decision.state === 'failed')
    throw ApplicationFailure.nonRetryable('The task could not be admitted.', 'AdmissionFailed');
  if (decision.state === 'admitted') return decision;
  // A refusal is an outcome, not a failure: the workflow completes (the same Idempotency-Key, or payment, starts a
  // new run once it can be admitted: its id may be reused after any end).
  await condition(allHandlersFinished);
  return null;
}

// One batch replay of failed tasks (workflow id = batch id). 1. Select the tasks once (the history keeps the list,
// so a new worker carries on with the same ones). 2. Replay each as a new task, at most `tasksPerSecond`. 3. Wait,
// bounded, for the replays to end. Progress: the `progress` query, and the Web UI's current details.
import { ActivityFailure, proxyActivities, setCurrentDetails, setHandler, sleep } from '@temporalio/workflow';
import type { ReplayActivities } from '../activities/replay.activities.ts';
import {
  progressQuery,
  type ReplayBatchInput,
  type ReplayCandidate,
  type ReplayItem,
  type ReplayOutcome,
  type ReplayProgress,
  type SkipReason,
} from './contracts/replay-batch.types.ts';

// Database reads take milliseconds; half an hour of retries outlasts an outage worth waiting for.
const { selectReplayTasks, replayStatuses } = proxyActivities<ReplayActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '30 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
// A replay waits for its admission (at most 45 s); a retry finds the replay an earlier attempt admitted.
const { replayTask } = proxyActivities<ReplayActivities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '30 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

const maxPollMs = 15_000;

function itemOf(candidate: ReplayCandidate): ReplayItem {
  const item: ReplayItem = {
    task_id: candidate.taskId,
    account_id: candidate.accountId,
    model: candidate.model,
    outcome: 'remaining',
  };
  return candidate.skip ? { ...item, ...skippedItem(candidate.skip) } : item;
}

const skippedItem = (skip: Pick<ReplayItem, 'reason' | 'detail'> & { replayId?: string }): Partial<ReplayItem> => ({
  outcome: 'skipped',
  reason: skip.reason,
  ...(skip.detail ? { detail: skip.detail } : {}),
  ...(skip.replayId ? { replay_id: skip.replayId } : {}),
});

function resultItem(outcome: ReplayOutcome): Partial<ReplayItem> {
  if (outcome.outcome === 'skipped') return skippedItem(outcome);
  return { outcome: 'replayed', replay_id: outcome.replayId, replay_status: 'pending' };
}

/** A replay whose admission never got an answer (it gave up retrying): reported, and a second run may try again. */
const unanswered = (error: unknown): ReplayOutcome => ({
  outcome: 'skipped',
  reason: 'admission did not answer (run the batch again)' satisfies SkipReason,
  detail: (error instanceof ActivityFailure && error.cause ? error.cause : (error as Error)).message,
});

/** Recounts the totals from the items, so they always agree. */
function tally(progress: ReplayProgress): void {
  const { items } = progress;
  const count = (test: (item: ReplayItem) => boolean) => items.filter(test).length;
  progress.selected = items.length;
  progress.remaining = count((item) => item.outcome === 'remaining');
  progress.replayed = count((item) => item.outcome === 'replayed');
  progress.skipped = count((item) => item.outcome === 'skipped');
  progress.completed = count((item) => item.replay_status === 'completed');
  progress.failed_again = count((item) => item.replay_status === 'failed');
  progress.pending = count((item) => item.replay_status === 'pending');
  progress.skipped_by_reason = {};
  for (const item of items)
    if (item.reason) progress.skipped_by_reason[item.reason] = (progress.skipped_by_reason[item.reason] ?? 0) + 1;
}

/** What the Web UI shows on the workflow's page (markdown). */
function details(progress: ReplayProgress): string {
  const reasons = Object.entries(progress.skipped_by_reason).map(([reason, count]) => `${reason}: ${count}`);
  return [
    `**Replay batch ${progress.batch_id}**: ${progress.state}`,
    `selected ${progress.selected}, remaining ${progress.remaining}`,
    `replayed ${progress.replayed}: completed ${progress.completed}, failed again ${progress.failed_again}, pending ${progress.pending}`,
    `skipped ${progress.skipped}${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}`,
  ].join('\n\n');
}

export async function replayBatchWorkflow(input: ReplayBatchInput): Promise<ReplayProgress> {
  const progress: ReplayProgress = {
    batch_id: input.batchId,
    state: 'selecting',
    selected: 0,
    replayed: 0,
    skipped: 0,
    completed: 0,
    failed_again: 0,
    pending: 0,
    remaining: 0,
    skipped_by_reason: {},
    items: [],
  };
  setHandler(progressQuery, () => progress);
  const update = (change: Partial<ReplayProgress> = {}) => {
    Object.assign(progress, change);
    tally(progress);
    setCurrentDetails(details(progress));
  };
  update();

  // 1. Select.
  const candidates = await selectReplayTasks(input.selection);
  update({ state: 'replaying', items: candidates.map(itemOf) });

  // 2. Replay, spaced so that no more than tasksPerSecond start in any second.
  const spacingMs = 1000 / input.tasksPerSecond;
  let lastStart: number | undefined;
  for (const [index, candidate] of candidates.entries()) {
    const item = progress.items[index];
    if (candidate.skip || !item) continue;
    if (lastStart !== undefined && lastStart + spacingMs > Date.now()) await sleep(lastStart + spacingMs - Date.now());
    lastStart = Date.now();
    const outcome = await replayTask({ batchId: input.batchId, taskId: candidate.taskId }).catch(unanswered);
    Object.assign(item, resultItem(outcome));
    update();
  }

  // 3. Wait for the replays to end, polling on growing intervals, until waitSeconds have passed.
  update({ state: 'waiting' });
  const deadline = Date.now() + input.waitSeconds * 1000;
  let pollMs = 1000;
  while (progress.pending > 0 && Date.now() < deadline) {
    await sleep(Math.min(pollMs, deadline - Date.now()));
    pollMs = Math.min(pollMs * 1.5, maxPollMs);
    const pending = progress.items.flatMap((item) =>
      item.replay_status === 'pending' && item.replay_id ? [{ item, id: item.replay_id }] : [],
    );
    const statuses = await replayStatuses(pending.map(({ id }) => id));
    for (const { item, id } of pending) item.replay_status = statuses[id] ?? 'pending';
    update();
  }
  update({ state: 'done' });
  return progress;
}

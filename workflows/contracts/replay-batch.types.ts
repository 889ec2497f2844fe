// A batch replay of failed tasks as its workflow, its activities and genctl see it. Types and constants only
// (the workflow bundle imports this, and so do src/ and activities/).
import { defineQuery } from '@temporalio/workflow';
import type { SkipReason } from '../../src/domain/replay-reasons.ts';

export type { SkipReason };

/** Which failed tasks a batch replays: every bound fixed (times absolute) so the same batch selects the same tasks. */
export interface ReplaySelection {
  status: 'failed';
  /** ISO times: created at or after `since` (when given) and before `until`. */
  since?: string;
  until: string;
  model?: string;
  provider?: string;
  accountId?: string;
  /** Part of the task's error message, any case. */
  error?: string;
  limit: number;
  /** Also replays tasks their caller cancelled (`error: "cancelled"`), which a batch otherwise skips. */
  includeCancelled?: boolean;
}

export interface ReplayBatchInput {
  batchId: string;
  selection: ReplaySelection;
  /** Replays started per second at most, so a batch cannot flood a provider. */
  tasksPerSecond: number;
  /** How long the batch waits for its replays to end before it reports those still running as pending. */
  waitSeconds: number;
}

/** A failed task the selection found, and why it will not be replayed whatever happens (null: it is tried). */
export interface ReplayCandidate {
  taskId: string;
  accountId: string;
  model: string;
  skip: { reason: SkipReason; replayId?: string } | null;
}

/** What replaying one task did: a new task admitted (its cost reserved), or why not. */
export type ReplayOutcome =
  | { outcome: 'replayed'; replayId: string; costMicros: string }
  | { outcome: 'skipped'; reason: SkipReason; detail?: string; replayId?: string };

/** One selected task in the batch's progress. */
export interface ReplayItem {
  task_id: string;
  account_id: string;
  model: string;
  /** `remaining` until the batch gets to it. */
  outcome: 'remaining' | 'replayed' | 'skipped';
  replay_id?: string;
  reason?: SkipReason;
  detail?: string;
  /** A replay's status as last seen: `pending` until it ends. */
  replay_status?: 'pending' | 'completed' | 'failed';
}

/** The `progress` query's answer, and the workflow's result. */
export interface ReplayProgress {
  batch_id: string;
  state: 'selecting' | 'replaying' | 'waiting' | 'done';
  selected: number;
  replayed: number;
  skipped: number;
  /** Replays that ended completed, failed again, or have not ended yet. */
  completed: number;
  failed_again: number;
  pending: number;
  /** Selected tasks the batch has not reached yet. */
  remaining: number;
  skipped_by_reason: Record<string, number>;
  items: ReplayItem[];
}

/** Started by name on the main task queue. */
export type ReplayBatchWorkflow = (input: ReplayBatchInput) => Promise<ReplayProgress>;

/** How far the batch is: genctl's `tasks replay` status and the attach on a re-run read it. */
export const progressQuery = defineQuery<ReplayProgress>('progress');

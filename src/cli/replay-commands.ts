// genctl tasks replay: selects failed tasks and replays each as a new task, in a batch workflow on Temporal (it
// outlives genctl: run the same command again to attach). A progress bar on a terminal, a summary at the end.
import type { Client } from '@temporalio/client';
import type { Catalog } from '../catalog/catalog.ts';
import type { Config } from '../config/config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import { formatUsd } from '../domain/money.ts';
import { replayBatchId, selectReplayCandidates } from '../generations/replay-selection.ts';
import { planReplay, type ReplayPlan } from '../use-cases/generations/replays.ts';
import {
  isBatchRunning,
  replayProgress,
  type ReplayBatchHandle,
  startReplayBatch,
} from '../use-cases/temporal/replay-batches.ts';
import { providerNamed, providerSlugs } from '../providers/provider-list.ts';
import type {
  ReplayBatchInput,
  ReplayProgress,
  ReplaySelection,
} from '../../workflows/contracts/replay-batch.types.ts';
import { CommandError, type Output, table } from './commands.ts';

export interface ReplayDeps {
  prisma: PrismaClient;
  config: Pick<Config, 'temporal' | 'inputs' | 'providers' | 'x402' | 'chains' | 'outputs'>;
  catalog: Catalog;
  temporal: () => Promise<Client>;
  /** Where the progress bar goes: stderr, when it is a terminal. */
  progress?: NodeJS.WriteStream;
}

export interface ReplayOptions {
  status?: string;
  since?: string;
  until?: string;
  model?: string;
  provider?: string;
  account?: string;
  error?: string;
  limit?: string;
  rate?: string;
  batchId?: string;
  includeCancelled?: boolean;
  dryRun?: boolean;
  noWait?: boolean;
  json?: boolean;
}

const defaultLimit = 100;
const maxLimit = 1000;
const defaultTasksPerSecond = 2;
// The batch waits this long for its replays to end; genctl waits for the batch.
const waitSeconds = 3600;
const progressEveryMs = 500;

const units = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const spanAgo = /^(\d+)([smhd])$/;

/**
 * Relative bounds name their batch by the window of the clock the command runs in (UTC, from the hour: 10:00, 10:10,
 * …): the same command within it names the same batch; in the next one, it attaches to the previous one's if running.
 */
export const batchWindowMs = 10 * 60_000;

/** An ISO time, or a span ago (`90s`, `30m`, `2h`, `7d`), as an absolute ISO time. */
function timeOf(value: string, flag: string, now: Date): string {
  const ago = spanAgo.exec(value);
  const time = ago ? new Date(now.getTime() - Number(ago[1]) * units[ago[2] as keyof typeof units]) : new Date(value);
  if (Number.isNaN(time.getTime()))
    throw new CommandError(`${flag} must be an ISO time (2026-11-23T10:00:00Z) or a span ago (30m, 2h, 7d)`, 2);
  return time.toISOString();
}

function wholeNumber(value: string | undefined, flag: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0 || number > max)
    throw new CommandError(`${flag} must be a number above 0, at most ${max}`, 2);
  return number;
}

/** The selection with every bound absolute: `--until` defaults to now, so a batch never picks up its own replays. */
export function replaySelectionOf(options: ReplayOptions, now = new Date()): ReplaySelection {
  if (options.status !== 'failed') throw new CommandError('--status failed is required: only failed tasks replay', 2);
  if (options.provider && !providerNamed(options.provider))
    throw new CommandError(`--provider must be one of ${providerSlugs.join(', ')}`, 2);
  const limit = wholeNumber(options.limit, '--limit', defaultLimit, maxLimit);
  if (!Number.isInteger(limit)) throw new CommandError('--limit must be a whole number', 2);
  const selection: ReplaySelection = {
    status: 'failed',
    ...(options.since ? { since: timeOf(options.since, '--since', now) } : {}),
    until: options.until ? timeOf(options.until, '--until', now) : now.toISOString(),
    ...(options.model ? { model: options.model } : {}),
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.account ? { accountId: options.account } : {}),
    ...(options.error ? { error: options.error } : {}),
    limit,
    ...(options.includeCancelled ? { includeCancelled: true } : {}),
  };
  if (selection.since && selection.since >= selection.until)
    throw new CommandError('--since must be before --until', 2);
  return selection;
}

/**
 * How the batch of these options is named: by its resolved times when both are absolute; by the bounds as written and
 * the window `now` falls in (`windowsBefore` windows earlier) when either is relative (`--until` left out is `now`).
 */
export function replayBatchIdOf(
  options: ReplayOptions,
  selection: ReplaySelection,
  now = new Date(),
  windowsBefore = 0,
): string {
  const sinceRelative = options.since !== undefined && spanAgo.test(options.since);
  const untilRelative = options.until === undefined || spanAgo.test(options.until);
  if (!sinceRelative && !untilRelative) return replayBatchId(selection);
  const window = (Math.floor(now.getTime() / batchWindowMs) - windowsBefore) * batchWindowMs;
  return replayBatchId(selection, {
    ...(options.since ? { since: sinceRelative ? options.since : selection.since } : {}),
    until: options.until === undefined ? 'now' : untilRelative ? options.until : selection.until,
    window: new Date(window).toISOString(),
  });
}

const describeSelection = (selection: ReplaySelection) =>
  [
    `failed tasks created ${selection.since ? `from ${selection.since} ` : ''}before ${selection.until}`,
    selection.model && `model ${selection.model}`,
    selection.provider && `provider ${selection.provider}`,
    selection.accountId && `account ${selection.accountId}`,
    selection.error && `error ~ "${selection.error}"`,
    selection.includeCancelled && 'cancelled ones included',
    `at most ${selection.limit}`,
  ]
    .filter(Boolean)
    .join(', ');

function dryRunOutput(batchId: string, selection: ReplaySelection, plans: ReplayPlan[]): Output {
  const replays = plans.filter((plan) => !plan.skip);
  const total = replays.reduce((sum, plan) => sum + (plan.costMicros ?? 0n), 0n);
  const rows = plans.map((plan) => ({
    task_id: plan.taskId,
    account_id: plan.accountId,
    model: plan.model,
    plan: plan.skip ? 'skip' : 'replay',
    ...(plan.costMicros !== undefined ? { cost: formatUsd(plan.costMicros) } : {}),
    ...(plan.skip ? { reason: plan.skip.reason } : {}),
    ...(plan.detail ? { detail: plan.detail } : {}),
    ...(plan.skip?.replayId ? { replay_id: plan.skip.replayId } : {}),
  }));
  const lines = [
    `Dry run of batch ${batchId} (nothing started): ${describeSelection(selection)}.`,
    ...(rows.length === 0
      ? ['No failed task matches.']
      : [
          table([
            ['TASK', 'ACCOUNT', 'MODEL', 'PLAN'],
            ...rows.map((row) => [
              row.task_id,
              row.account_id,
              row.model,
              row.plan === 'replay'
                ? `replay (${row.cost} USD)`
                : `skip: ${row.reason}${row.detail ? ` (${row.detail})` : ''}${row.replay_id ? ` as ${row.replay_id}` : ''}`,
            ]),
          ]),
          `Would replay ${replays.length} (${formatUsd(total)} USD at today's prices), skip ${plans.length - replays.length}.`,
        ]),
  ];
  return {
    json: {
      batch_id: batchId,
      dry_run: true,
      selection,
      would_replay: replays.length,
      would_skip: rows.length - replays.length,
      tasks: rows,
    },
    text: lines.join('\n'),
  };
}

/** The summary printed at the end: totals, then each task that did not simply replay and complete. */
export function summaryText(progress: ReplayProgress): string {
  const totals = [
    ['Batch', progress.batch_id],
    ['Selected', String(progress.selected)],
    ['Replayed', String(progress.replayed)],
    ['  completed', String(progress.completed)],
    ['  failed again', String(progress.failed_again)],
    ['  still running', String(progress.pending)],
    ['Skipped', String(progress.skipped)],
    ...Object.entries(progress.skipped_by_reason).map(([reason, count]) => [`  ${reason}`, String(count)]),
    ...(progress.remaining > 0 ? [['Not reached', String(progress.remaining)]] : []),
  ];
  const notable = progress.items.filter((item) => item.outcome !== 'replayed' || item.replay_status !== 'completed');
  const details = notable.map((item) => [
    item.task_id,
    item.replay_id ?? '-',
    item.outcome === 'replayed'
      ? item.replay_status === 'failed'
        ? 'failed again'
        : 'still running'
      : item.outcome === 'skipped'
        ? `skipped: ${item.reason}${item.detail ? ` (${item.detail})` : ''}`
        : 'not reached',
  ]);
  return [table(totals), ...(details.length > 0 ? ['', table([['TASK', 'REPLAY', 'OUTCOME'], ...details])] : [])].join(
    '\n',
  );
}

function progressLine(progress: ReplayProgress): string {
  const done = progress.selected - progress.remaining;
  const width = 24;
  const filled =
    progress.selected === 0 ? (progress.state === 'done' ? width : 0) : Math.round((done / progress.selected) * width);
  return (
    `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${progress.selected} ${progress.state}: ` +
    `replayed ${progress.replayed}, skipped ${progress.skipped}, completed ${progress.completed}, ` +
    `failed again ${progress.failed_again}, pending ${progress.pending}\x1b[K`
  );
}

/** Waits for the batch, redrawing the bar from its `progress` query meanwhile (a query that fails is skipped). */
async function awaitBatch(handle: ReplayBatchHandle, bar: NodeJS.WriteStream | undefined): Promise<ReplayProgress> {
  if (!bar) return handle.result();
  let finished = false;
  const drawing = (async () => {
    while (!finished) {
      const progress = await replayProgress(handle).catch(() => undefined);
      if (progress && !finished) bar.write(progressLine(progress));
      await new Promise((resolve) => setTimeout(resolve, progressEveryMs));
    }
  })();
  try {
    const result = await handle.result();
    bar.write(`${progressLine(result)}\n`);
    return result;
  } finally {
    finished = true;
    await drawing;
  }
}

export async function replayTasksCommand(deps: ReplayDeps, options: ReplayOptions): Promise<Output> {
  const now = new Date();
  const selection = replaySelectionOf(options, now);
  let batchId = options.batchId ?? replayBatchIdOf(options, selection, now);
  if (!/^[\w.:-]{1,200}$/.test(batchId))
    throw new CommandError('--batch-id: letters, digits, "_", ".", ":" and "-", at most 200', 2);
  if (options.dryRun) {
    const candidates = await selectReplayCandidates(deps.prisma, deps.catalog, selection);
    return dryRunOutput(batchId, selection, await planReplay(deps, candidates));
  }
  const client = await deps.temporal();
  // Run again just past the window's end, the command attaches to the batch it started in the window before.
  const previous = options.batchId ? undefined : replayBatchIdOf(options, selection, now, 1);
  if (previous && previous !== batchId && (await isBatchRunning(client, previous))) batchId = previous;
  const input: ReplayBatchInput = {
    batchId,
    selection,
    tasksPerSecond: wholeNumber(options.rate, '--rate', defaultTasksPerSecond, 100),
    waitSeconds,
  };
  const handle = await startReplayBatch(
    client,
    deps.config.temporal.taskQueue,
    input,
    `Replay of ${describeSelection(selection)}`,
  );
  if (options.noWait) {
    return {
      json: { batch_id: batchId, started: true, selection },
      text: `Batch ${batchId} is running (${describeSelection(selection)}).\nRun the same command (or add --batch-id ${batchId}) to follow it; its workflow id is ${batchId}.`,
    };
  }
  const showBar = !options.json && deps.progress?.isTTY ? deps.progress : undefined;
  const result = await awaitBatch(handle, showBar);
  return { json: result, text: summaryText(result) };
}

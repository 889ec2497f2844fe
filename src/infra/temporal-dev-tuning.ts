// The embedded Temporal dev server's tuning, for `npm start`, the tests and the benchmark alike. Its single history
// shard reads the transfer queue 20 times a second by default (a ≈50 ms floor under every new workflow); SQLite runs
// with its safest and slowest defaults; several task-queue partitions only add a tail on one machine.
import type { Config } from '../config/config.ts';

export type DevServerTuning = Pick<
  Config,
  'TEMPORAL_DEV_TRANSFER_POLL_RPS' | 'TEMPORAL_DEV_SQLITE_WAL' | 'TEMPORAL_DEV_TASK_QUEUE_PARTITIONS'
>;

/** `temporal server start-dev` arguments that apply the tuning. */
export function devServerTuningArgs(tuning: DevServerTuning): string[] {
  const dynamic = (key: string, value: number) => ['--dynamic-config-value', `${key}=${value}`];
  return [
    ...dynamic('history.transferProcessorMaxPollRPS', tuning.TEMPORAL_DEV_TRANSFER_POLL_RPS),
    ...dynamic('matching.numTaskqueueReadPartitions', tuning.TEMPORAL_DEV_TASK_QUEUE_PARTITIONS),
    ...dynamic('matching.numTaskqueueWritePartitions', tuning.TEMPORAL_DEV_TASK_QUEUE_PARTITIONS),
    ...(tuning.TEMPORAL_DEV_SQLITE_WAL
      ? ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal']
      : []),
  ];
}

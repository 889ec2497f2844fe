// The embedded Temporal dev server's tuning, for `npm start`, the tests and the benchmark alike. Its single history
// shard reads the transfer queue 20 times a second by default (a ≈50 ms floor under every new workflow); SQLite runs
// with its safest and slowest defaults; several task-queue partitions only add a tail on one machine.
import type { TemporalConfig } from '../config/config.ts';

export type DevServerTuning = Pick<
  TemporalConfig['devServer'],
  'transferPollRps' | 'sqliteWal' | 'taskQueuePartitions'
>;

/** `temporal server start-dev` arguments that apply the tuning. */
export function devServerTuningArgs(tuning: DevServerTuning): string[] {
  const dynamic = (key: string, value: number) => ['--dynamic-config-value', `${key}=${value}`];
  return [
    ...dynamic('history.transferProcessorMaxPollRPS', tuning.transferPollRps),
    ...dynamic('matching.numTaskqueueReadPartitions', tuning.taskQueuePartitions),
    ...dynamic('matching.numTaskqueueWritePartitions', tuning.taskQueuePartitions),
    ...(tuning.sqliteWal ? ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'] : []),
  ];
}

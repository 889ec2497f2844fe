// A task's end, counted once: by the transaction that moved it to completed or failed, after that commit.
import { metrics, microsValue } from './metrics.ts';

/** A catalog id is `<provider>/<slug>` (src/catalog/catalog.ts), so the provider is its first part. */
export const providerOfModel = (modelId: string): string => modelId.split('/')[0] ?? 'unknown';

export interface EndedTask {
  model: string;
  status: 'completed' | 'failed';
  createdAt: Date;
  completedAt: Date | null;
  /** Micro-USD charged (a completed task) and released back to the balance. */
  chargedMicros: bigint;
  releasedMicros: bigint;
}

export function recordTaskEnded(task: EndedTask): void {
  const labels = { model: task.model, provider: providerOfModel(task.model) };
  metrics.tasksEnded.inc({ ...labels, status: task.status });
  const endedAt = task.completedAt ?? new Date();
  metrics.taskDuration.observe(
    { ...labels, status: task.status },
    (endedAt.getTime() - task.createdAt.getTime()) / 1000,
  );
  // A counter refuses a negative step by throwing: never let a metric fail the settlement it follows.
  metrics.moneyCharged.inc(labels, Math.max(0, microsValue(task.chargedMicros)));
  metrics.moneyReleased.inc(labels, Math.max(0, microsValue(task.releasedMicros)));
}

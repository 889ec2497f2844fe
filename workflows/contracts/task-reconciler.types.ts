// The task reconciler as its schedule and its activity see it. Types only, and nothing from activities/: the
// reconciler's activity imports this, so importing back would close a cycle.

export interface ReconcileInput {
  /** Only tasks queued (or untouched while processing) for longer than this: younger ones may still be under way. */
  olderThanSeconds: number;
  /** Tasks looked at per run, oldest first. */
  limit: number;
}

export interface Repair {
  taskId: string;
  /** The workflow's status when it was looked at (`RUNNING`, `FAILED`, …), or `NOT_FOUND`. */
  workflow: string;
  /**
   * `admitted`: the running workflow has its admission (it adopted the row); `failed`: released and failed;
   * `started`: it left `queued` meanwhile; `unanswered`: the running workflow did not answer (next run tries again).
   */
  action: 'admitted' | 'failed' | 'started' | 'unanswered';
  /** `failed`: what its reservation gave back, in micro-USD (a decimal string: JSON has no bigint). */
  releasedMicros?: string;
  detail?: string;
}

/** A top-up neither settled nor failed long after its payment was kept, whose workflow was started again. */
export interface ResumedTopUp {
  topUpId: string;
  /** Its workflow's status when it was looked at (`COMPLETED`, `FAILED`, …), or `NOT_FOUND`. */
  workflow: string;
}

export interface ReconcileReport {
  checked: number;
  repairs: Repair[];
  /** Admission tombstones old enough to guard nothing, deleted by this run. */
  abandonedAdmissionsPruned?: number;
  /** Budget alerts whose webhook their admission's worker did not start (it stopped first), started by this run. */
  budgetAlertsNotified?: number;
  /** Top-ups left unsettled (their api process or workflow gone), whose workflow this run started again. */
  topUpsResumed?: ResumedTopUp[];
}

/** Started by name (`taskReconcilerWorkflow`) by its schedule, on the main task queue. */
export type TaskReconcilerWorkflow = (input: ReconcileInput) => Promise<ReconcileReport>;

// The output retention sweep as its schedule and its activity see it. Types only (the activity imports this).

export interface OutputExpiryInput {
  /** Tasks swept per activity call; a run calls it until fewer come back (at most `maxPages` times). */
  limit: number;
  maxPages: number;
}

export interface OutputExpiryReport {
  /** Ids of the ended tasks whose stored files this run deleted (OUTPUT_RETENTION_DAYS after they ended). */
  deleted: string[];
}

/** Started by name (`outputExpiryWorkflow`) by its schedule, on the main task queue. */
export type OutputExpiryWorkflow = (input: OutputExpiryInput) => Promise<OutputExpiryReport>;

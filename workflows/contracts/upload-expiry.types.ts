// The upload expiry sweep as its schedule and its activity see it. Types only (the activity imports this).

export interface UploadExpiryInput {
  /** Expired uploads deleted per activity call; a run calls it until fewer come back (at most `maxPages` times). */
  limit: number;
  maxPages: number;
}

export interface UploadExpiryReport {
  /** Ids of the uploads whose files this run deleted. */
  deleted: string[];
}

/** Started by name (`uploadExpiryWorkflow`) by its schedule, on the main task queue. */
export type UploadExpiryWorkflow = (input: UploadExpiryInput) => Promise<UploadExpiryReport>;

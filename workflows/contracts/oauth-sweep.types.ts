// The OAuth sweep as its schedule and its activity see it. Types only (the activity imports this).

export interface OAuthSweepInput {
  /** Rows of each kind swept per activity call; a run calls it until fewer come back (at most `maxPages` times). */
  limit: number;
  maxPages: number;
}

export interface OAuthSweepReport {
  /** What this run swept: `grant:<key>` (revoked: its code expired unredeemed), `code:<key>`, `client:<id>`, …. */
  deleted: string[];
}

/** Started by name (`oauthSweepWorkflow`) by its schedule, on the main task queue. */
export type OAuthSweepWorkflow = (input: OAuthSweepInput) => Promise<OAuthSweepReport>;

// What the generation workflow and the provider activities exchange about a provider call and an upstream job.
// Types only: activities/provider.activities.ts imports them, so nothing here may import back from activities/.
import type { ProviderResult } from '../../src/providers/types.ts';

export interface GeneratedOutputs {
  outputs: string[];
  usage?: ProviderResult['usage'];
}

/** An upstream job in flight, and how the workflow should poll it when no callback comes. */
export interface SubmittedJob {
  jobId: string;
  pollIntervalMs: number;
  pollMaxIntervalMs: number;
  /** How long the submitting attempt waited for a provider slot: the workflow does not count it as the model's. */
  queuedMs?: number;
}

export interface JobRef {
  taskId: string;
  modelId: string;
  jobId: string;
  /** The fallback route the job was submitted on (1… in the model's `fallbacks`); absent: the model's own. */
  route?: number;
}

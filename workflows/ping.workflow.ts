// The smallest real workflow: an optional durable timer, then one activity that reaches the database.
// Operators use it as an end-to-end smoke test of worker → Temporal → PostgreSQL; it is also the template
// every later workflow's tests follow.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { SystemActivities } from '../activities/system.activities.ts';

const { checkDatabase } = proxyActivities<SystemActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

export interface PingInput {
  /** Waits this long first, on a durable timer (a duration string such as "1 hour", or milliseconds). */
  delay?: string | number;
}

export interface PingResult {
  database: string;
  checkedAt: string;
}

export async function pingWorkflow(input: PingInput = {}): Promise<PingResult> {
  if (input.delay) await sleep(input.delay as Parameters<typeof sleep>[0]);
  return await checkDatabase();
}

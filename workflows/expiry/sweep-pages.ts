// What every expiry sweep does in one run: calls its page activity until a page comes back short, at most `maxPages`
// times (the next scheduled run takes the rest), with the activity options they share.
import type { ActivityOptions } from '@temporalio/workflow';

// The next scheduled run takes over from one that gave up.
export const sweepActivityOptions: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/** The ids every page deleted, in order. */
export async function sweepPages(
  page: (input: { limit: number }) => Promise<{ deleted: string[] }>,
  input: { limit: number; maxPages: number },
): Promise<{ deleted: string[] }> {
  const deleted: string[] = [];
  for (let count = 0; count < input.maxPages; count += 1) {
    const pass = await page({ limit: input.limit });
    deleted.push(...pass.deleted);
    if (pass.deleted.length < input.limit) break;
  }
  return { deleted };
}

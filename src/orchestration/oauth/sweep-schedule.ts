// The OAuth sweep: a Temporal Schedule runs oauthSweepWorkflow every OAUTH_SWEEP_INTERVAL_SECONDS, which revokes the
// grants whose code expired unredeemed and deletes what expired (src/accounts/oauth/grant-sweep.ts).
import type { Client, ScheduleOptions, ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { OAuthSweepWorkflow } from '../../../workflows/contracts/oauth-sweep.types.ts';
import type { Config } from '../../config/config.ts';
import { ensureSchedule } from '../temporal/schedules.ts';

export const oauthSweepScheduleId = 'oauth-sweep';

export async function ensureOAuthSweepSchedule(
  client: Client,
  config: Pick<Config, 'oauth' | 'temporal'>,
): Promise<string> {
  const options = {
    scheduleId: oauthSweepScheduleId,
    spec: { intervals: [{ every: `${config.oauth.sweepIntervalSeconds} seconds` }] },
    action: {
      type: 'startWorkflow' as const,
      workflowType: 'oauthSweepWorkflow',
      workflowId: oauthSweepScheduleId,
      args: [{ limit: 200, maxPages: 20 }],
      taskQueue: config.temporal.taskQueue,
    },
    policies: { overlap: 'SKIP' as const },
  } satisfies ScheduleOptions<ScheduleOptionsStartWorkflowAction<OAuthSweepWorkflow>>;
  return ensureSchedule(client, options);
}

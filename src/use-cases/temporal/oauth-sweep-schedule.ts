// The OAuth sweep: a Temporal Schedule runs oauthSweepWorkflow every OAUTH_SWEEP_INTERVAL_SECONDS, which revokes the
// grants whose code expired unredeemed and deletes what expired (src/accounts/oauth/grant-sweep.ts).
import type { Client } from '@temporalio/client';
import type { OAuthSweepWorkflow } from '../../../workflows/contracts/oauth-sweep.types.ts';
import type { Config } from '../../config/config.ts';
import { ensureIntervalSchedule } from './schedules.ts';

export const oauthSweepScheduleId = 'oauth-sweep';

export async function ensureOAuthSweepSchedule(
  client: Client,
  config: Pick<Config, 'oauth' | 'temporal'>,
): Promise<string> {
  return ensureIntervalSchedule<OAuthSweepWorkflow>(client, {
    scheduleId: oauthSweepScheduleId,
    workflowType: 'oauthSweepWorkflow',
    everySeconds: config.oauth.sweepIntervalSeconds,
    args: [{ limit: 200, maxPages: 20 }],
    taskQueue: config.temporal.taskQueue,
  });
}

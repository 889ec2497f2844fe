// One pass of the OAuth sweep, started by its Temporal Schedule: revokes grants whose code expired unredeemed and
// deletes expired codes, refresh tokens, answered requests and unused registrations, a page at a time.
import { proxyActivities } from '@temporalio/workflow';
import type { OAuthActivities } from '../../activities/oauth.activities.ts';
import { sweepActivityOptions, sweepPages } from './sweep-pages.ts';
import type { OAuthSweepInput, OAuthSweepReport } from '../contracts/oauth-sweep.types.ts';

const { sweepOAuthGrants } = proxyActivities<OAuthActivities>(sweepActivityOptions);

export function oauthSweepWorkflow(input: OAuthSweepInput): Promise<OAuthSweepReport> {
  return sweepPages(sweepOAuthGrants, input);
}

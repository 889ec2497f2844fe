import type { Endpoint } from '../endpoint.ts';
import { accountEndpoints } from './account/account.routes.ts';
import { agentEndpoints } from './agents/agents.routes.ts';
import { eventEndpoints } from './events/events.routes.ts';
import { generationEndpoints } from './generations/generations.routes.ts';
import { keyEndpoints } from './keys/keys.routes.ts';
import { modelEndpoints } from './models/models.routes.ts';
import { oauthEndpoints } from './oauth/oauth.routes.ts';
import { uploadEndpoints } from './uploads/uploads.routes.ts';
import { usageEndpoints } from './usage/usage.routes.ts';
import { signInEndpoints } from './sign-in/sign-in.routes.ts';
import { topUpEndpoints } from './top-ups/top-ups.routes.ts';
import { webhookEndpoints } from './webhooks/webhooks.routes.ts';

/** Every endpoint of the interface, in the spec's order. */
export const apiEndpoints: Endpoint[] = [
  ...modelEndpoints,
  ...agentEndpoints,
  ...accountEndpoints,
  ...topUpEndpoints,
  ...signInEndpoints,
  ...generationEndpoints,
  ...eventEndpoints,
  ...uploadEndpoints,
  ...keyEndpoints,
  ...oauthEndpoints,
  ...usageEndpoints,
  ...webhookEndpoints,
];

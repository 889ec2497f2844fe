import type { Endpoint } from '../endpoint.ts';
import { accountEndpoints } from './account.routes.ts';
import { agentEndpoints } from './agents.routes.ts';
import { eventEndpoints } from './events.routes.ts';
import { generationEndpoints } from './generations.routes.ts';
import { keyEndpoints } from './keys.routes.ts';
import { modelEndpoints } from './models.routes.ts';
import { oauthEndpoints } from './oauth.routes.ts';
import { uploadEndpoints } from './uploads.routes.ts';
import { usageEndpoints } from './usage.routes.ts';
import { signInEndpoints } from './sign-in.routes.ts';
import { topUpEndpoints } from './top-ups.routes.ts';
import { webhookEndpoints } from './webhooks.routes.ts';

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

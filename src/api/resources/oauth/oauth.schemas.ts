import { safeText, z } from '../../schemas/zod.ts';
import { CreateKeyBodySchema, KeyScopeSchema } from '../keys/keys.schemas.ts';

/** The signed authorization request /oauth/authorize sent the person here with (the console's `?request=`). */
const request = safeText(8000)
  .min(1)
  .openapi({ description: 'The `request` parameter /oauth/authorize sent to the consent screen' });

export const ConsentQuerySchema = z.object({ request });

export const ConsentRequestSchema = z
  .object({
    client: z.object({
      id: z.string(),
      name: z.string().openapi({ description: "The client's registered name, or its id" }),
      uri: z.string().nullable().openapi({ description: "The client's home page, as it registered it" }),
    }),
    redirect_uri: z.string().openapi({ description: 'Where the answer goes' }),
    scopes: z.array(KeyScopeSchema),
    resource: z.string().openapi({ description: 'What the tokens will be for: the MCP endpoint' }),
  })
  .openapi('OAuthConsentRequest');

export const ConsentAnswerBodySchema = z
  .strictObject({
    request,
    approve: z.boolean().openapi({ description: 'true: grant; false: refuse (the client gets `access_denied`)' }),
    name: safeText(100)
      .trim()
      .min(1)
      .optional()
      .openapi({ description: "The grant's key name; default: the client's" }),
    policy: CreateKeyBodySchema.shape.policy,
    expires_at: CreateKeyBodySchema.shape.expires_at,
  })
  .openapi('OAuthConsentAnswer');

export const ConsentAnsweredSchema = z
  .object({
    redirect_to: z.string().openapi({
      description:
        "Where to send the person's browser now: the client's redirect URI, or for a refusal that would leave the person's machine, the gateway's page `/oauth/ended`",
    }),
    key_id: z
      .string()
      .nullable()
      .openapi({ description: 'The grant: a key listed and revoked under /keys; null if refused' }),
  })
  .openapi('OAuthConsentAnswered');

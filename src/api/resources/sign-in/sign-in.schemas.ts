import { z } from '../../schemas/zod.ts';

export const signInHeaders = z.object({
  'SIGN-IN-WITH-X': z.string().max(8192).optional().openapi({
    description:
      "x402's Sign-In-with-X: the signed challenge (SIWE message fields and signature) as base64 JSON; absent, the answer is a 402 with the challenge",
  }),
});

export const WalletSignInResponseSchema = z
  .object({
    access_token: z
      .string()
      .openapi({ description: 'wt_…: reads this wallet’s own x402 tasks, their events and outputs' }),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    wallet: z.string(),
    account_id: z.string(),
  })
  .openapi('WalletSignInResponse');

export const AgentSignInRequestSchema = z
  .strictObject({
    agent_id: z
      .string()
      .regex(/^agt_[0-9A-Za-z]{22}$/, 'must be an agent id (agt_…)')
      .optional()
      .openapi({
        description: 'The agent to recover, when the wallet registered several',
      }),
    revoke_other_keys: z.boolean().default(false).openapi({
      description: "Revoke the agent's other keys (the lost one may be in someone else's hands)",
    }),
  })
  .openapi('AgentSignInRequest');

export const AgentSignInResponseSchema = z
  .object({
    agent_id: z.string(),
    api_key: z.string().openapi({ description: 'Shown once; store it now' }),
    key_id: z.string(),
    wallet: z.string(),
    revoked_keys: z.number().int(),
  })
  .openapi('AgentSignInResponse');

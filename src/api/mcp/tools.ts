// The MCP tools: each is one REST endpoint (by operationId), its arguments the endpoint's own zod schemas, so a tool
// is validated, authorized, rate-limited, run and answered exactly as the route is (src/api/endpoint.ts).
import { CreateKeyBodySchema } from '../resources/keys/keys.schemas.ts';
import { z } from 'zod';
import {
  AgentDepositRequestSchema,
  AgentQuoteRequestSchema,
  AgentRegisterRequestSchema,
  AgentWebhookRequestSchema,
} from '../resources/agents/agents.schemas.ts';
import {
  CreateGenerationHeadersSchema,
  GenerationHistoryQuerySchema,
  GenerationRequestSchema,
} from '../resources/generations/generations.schemas.ts';
import { ModelsQuerySchema } from '../resources/models/models.schemas.ts';
import { TopUpRequestSchema } from '../resources/top-ups/top-ups.schemas.ts';
import { UsageQuerySchema } from '../resources/usage/usage.schemas.ts';
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { EndpointRequest } from '../adapter-call.ts';
import { type Endpoint, takesKeylessPayment } from '../endpoint.ts';
import type { AccountKind } from '../../generated/prisma/client.ts';
import type { Config } from '../../config/config.ts';

/**
 * How long a tool may hold its answer for a task to end (progress is reported meanwhile): well below the idle and
 * request timeouts of load balancers (the cluster's Caddy: 10 minutes); the transport's keep-alive fills the silence.
 */
export const maxWaitSeconds = 300;

const waitSeconds = z
  .number()
  .int()
  .min(0)
  .max(maxWaitSeconds)
  .optional()
  .describe(
    `Seconds to wait for the task to end before answering (0–${maxWaitSeconds}); progress notifications are sent meanwhile. Without it, answers at once.`,
  );

const taskId = z.string().min(1).max(100).describe('The task id (`gen_…`) that generate answered');

/** A tool's request of its endpoint: the parts its arguments make, the headers by their declared names. */
export type ToolRequest = EndpointRequest;

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /**
   * The REST endpoint the tool runs; one for agents' keys and one for the others where they differ (get_balance,
   * top_up).
   */
  operationId: string | { agent: string; other: string };
  input: z.ZodObject;
  /** The endpoint's request parts from the tool's arguments. */
  request(args: Record<string, unknown>): ToolRequest;
  /** The task a waiting tool follows until it ends (generate, get_generation). */
  follows?: true;
  /**
   * Creates a task: waiting with an API key needs `idempotency_key`, since a host that retries a call still waiting
   * would otherwise create a second task (an x402 payment is its own key: the same payment answers the same task).
   */
  creates?: true;
  /** May be called as an MCP task (`execution.taskSupport: "optional"`): src/api/mcp/mcp-tasks.ts. */
  runsAsTask?: true;
  /**
   * What the tool does to the world, as MCP's hints: every hint set on every tool (MCP's defaults assume the worst:
   * destructive, not idempotent, open world), so a host may call one that only reads without asking.
   */
  annotations: Required<Omit<ToolAnnotations, 'title'>>;
}

/** Reads the gateway's own data and changes nothing. */
const reads = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** The endpoint a call runs, by the caller's account kind (an agent's key or grant, or any other caller). */
export const operationFor = (tool: ToolDefinition, caller: AccountKind | undefined) =>
  typeof tool.operationId === 'string'
    ? tool.operationId
    : caller === 'agent'
      ? tool.operationId.agent
      : tool.operationId.other;

/**
 * The listing's `_meta` of a tool a caller without a key pays for, in x402's MCP key space (beside `x402/payment`): a
 * host or an index finds the paid tools, whose call without a payment is answered its payment requirements.
 */
export const paidToolMeta = { 'x402/paid': true } as const;

/** Whether the tool's endpoint, called without a key, takes a payment instead here (x402 on). */
export const isPaidTool = (tool: ToolDefinition, endpoints: Map<string, Endpoint>, config: Config) => {
  const endpoint = endpoints.get(operationFor(tool, undefined));
  return endpoint !== undefined && takesKeylessPayment(endpoint, config);
};

/** Every endpoint whose answer the tool may give: the one it runs (either), and the task's read when it follows one. */
export const answeringOperations = (tool: ToolDefinition) => [
  ...(typeof tool.operationId === 'string' ? [tool.operationId] : [tool.operationId.agent, tool.operationId.other]),
  ...(tool.follows ? ['getGeneration'] : []),
];

const asBody = (args: Record<string, unknown>) => ({ body: args, hasBody: true });

export const tools: ToolDefinition[] = [
  {
    name: 'list_models',
    title: 'List models',
    description: 'The catalog: every model with its type, capabilities and price; filter by type or provider.',
    operationId: 'listModels',
    input: ModelsQuerySchema,
    request: (args) => ({ query: args }),
    annotations: reads,
  },
  {
    name: 'quote',
    title: 'Quote a generation',
    description: 'What a generation would cost, and whether your balance covers it. Nothing is charged.',
    operationId: 'quoteGeneration',
    input: AgentQuoteRequestSchema,
    request: asBody,
    annotations: reads,
  },
  {
    name: 'generate',
    title: 'Generate',
    description:
      'Creates a generation task (image, video, audio, 3D or text; the same fields as POST /api/v1/generations) and answers its id and poll hints, or with `wait_seconds` the task once it ends. Without an API key, where x402 is on, it answers the payment requirements: pay by calling again with the payment in `_meta["x402/payment"]`.',
    operationId: 'createGeneration',
    input: GenerationRequestSchema.extend({
      idempotency_key: CreateGenerationHeadersSchema.shape['Idempotency-Key'].describe(
        'Makes retries safe: the same key with the same arguments answers the task it first created, charged once. Required with `wait_seconds` and an API key.',
      ),
      wait_seconds: waitSeconds,
    }),
    request: ({ idempotency_key, wait_seconds: _wait, ...body }) => ({
      body,
      hasBody: true,
      headers: { 'Idempotency-Key': idempotency_key as string | undefined },
    }),
    follows: true,
    creates: true,
    runsAsTask: true,
    // Runs a model (an upstream provider's or a local engine) and charges for it; the same idempotency_key answers the
    // same task, but a call without one creates another.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  {
    name: 'get_generation',
    title: 'Read a generation',
    description: 'A task as it is now (status, progress, outputs, error, cost), or with `wait_seconds` once it ends.',
    operationId: 'getGeneration',
    input: z.object({ id: taskId, wait_seconds: waitSeconds }),
    request: ({ id }) => ({ params: { id } }),
    follows: true,
    annotations: reads,
  },
  {
    name: 'list_generations',
    title: 'List your generations',
    description:
      'Your tasks, newest first, each as get_generation answers it; filter by status, type, model, idempotency_key, created_after/created_before. Pass `next_cursor` back as `cursor` for the next page.',
    operationId: 'listGenerations',
    input: GenerationHistoryQuerySchema,
    request: (args) => ({ query: args }),
    annotations: reads,
  },
  {
    name: 'get_usage',
    title: 'Read your usage',
    description:
      "What your tasks used over a period (`from`, `to`: days YYYY-MM-DD or ISO timestamps, UTC; default the last 30 days), optionally grouped by any of day, model, type, key (`group_by`, comma-separated): tasks, completed, failed, cancelled, cost and refunded in USD, and units in the models' own pricing units. The totals equal your ledger's charges for the period.",
    operationId: 'getUsage',
    input: UsageQuerySchema,
    request: (args) => ({ query: args }),
    annotations: reads,
  },
  {
    name: 'cancel_generation',
    title: 'Cancel a generation',
    description: 'Cancels a queued or running task; everything it reserved is released.',
    operationId: 'cancelGeneration',
    input: z.object({ id: taskId }),
    request: ({ id }) => ({ params: { id } }),
    // Ends work that cannot be resumed; cancelling an ended or cancelled task changes nothing more.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'get_balance',
    title: 'Read your balance',
    description: "Your balance: an agent's USDC balance, deposit addresses and deposits; a developer's USD balance.",
    operationId: { agent: 'getAgentBalance', other: 'getDeveloperBalance' },
    input: z.object({}),
    request: () => ({}),
    annotations: reads,
  },
  {
    name: 'register_agent',
    title: 'Register an agent',
    description:
      'Creates an agent account (no key needed): its API key (shown once: send it as `Authorization: Bearer`), deposit addresses and any trial credit.',
    operationId: 'registerAgent',
    input: AgentRegisterRequestSchema,
    request: asBody,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  {
    name: 'deposit',
    title: 'Claim a deposit',
    description: 'Credits a USDC transfer to your deposit address, by its transaction hash, once confirmed.',
    operationId: 'creditDeposit',
    input: AgentDepositRequestSchema,
    request: asBody,
    // Reads the chain; a transfer is credited once, however often it is claimed.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  },
  {
    name: 'top_up',
    title: 'Top up your balance',
    description:
      'Tops your balance up by `amount` USD (0.01 to 10000; the same body as POST /api/v1/agents/topup, or /account/topup with a developer key) with an x402 payment. Called without one, it answers the payment requirements (an `exact` USDC offer for exactly that amount): call again with the same arguments and the payment in `_meta["x402/payment"]`. Settled on chain, then credited once (the same payment again credits nothing more); the result is the top-up with the balance after it, its signed receipt also in `_meta["x402/payment-response"]`. Needs an API key.',
    operationId: { agent: 'topUpAgent', other: 'topUpAccount' },
    input: TopUpRequestSchema,
    request: asBody,
    // Moves the payer's USDC on chain; another payment with the same arguments credits again.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  {
    name: 'set_webhook',
    title: 'Set your webhook',
    description: 'Where your tasks’ generation.completed / generation.failed events are sent (signed).',
    operationId: 'updateAgentWebhook',
    input: AgentWebhookRequestSchema,
    request: asBody,
    // Replaces the webhook and its signing secret: receivers verifying with the old secret stop verifying.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
  {
    name: 'get_current_key',
    title: 'Read your key and its budget',
    description:
      "Your API key: its scopes, its policy, and its budget window's spent, reserved, remaining and resets_at.",
    operationId: 'getCurrentKey',
    input: z.object({}),
    request: () => ({}),
    annotations: reads,
  },
  {
    name: 'list_keys',
    title: 'List keys',
    description: 'The API keys your key manages (needs the keys scope), never their secrets.',
    operationId: 'listKeys',
    input: z.object({}),
    request: () => ({}),
    annotations: reads,
  },
  {
    name: 'create_key',
    title: 'Create a key',
    description:
      "A new API key of your account within your key's own scopes and policy (needs the keys scope; it gets the keys scope only when asked for), e.g. for a sub-agent: a budget per day/week/month/total, allowed models and types, a cap per task. Its secret is answered once.",
    operationId: 'createKey',
    input: CreateKeyBodySchema,
    request: asBody,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
  {
    name: 'revoke_key',
    title: 'Revoke a key',
    description: 'Revokes a key your key manages, and every key it created (needs the keys scope).',
    operationId: 'revokeKey',
    input: z.object({ id: z.string().min(1).max(100).describe('The key id (`key_…`)') }),
    request: ({ id }) => ({ params: { id } }),
    // A key revoked is refused from then on, with every key it made; revoking it again changes nothing.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
];

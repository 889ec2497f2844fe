import type { ApiKeyRow } from '../../../accounts/api-keys.ts';
import { principalKeyOf } from '../../../accounts/api-keys.ts';
import type { KeyPolicy } from '../../../accounts/key-policy.ts';
import {
  createKey,
  currentKey,
  type KeyChanges,
  type KeyHolder,
  type KeyWithWindow,
  listKeys,
  revokeKey,
  showKey,
  updateKey,
} from '../../../accounts/managed-keys.ts';
import type { Config } from '../../../config/config.ts';
import { usdNumber } from '../../../domain/money.ts';
import type { Tier } from '../../../domain/values.ts';
import type { Principal } from '../../../accounts/api-keys.ts';
import { defineEndpoint } from '../../endpoint.ts';
import { ApiError } from '../../errors.ts';
import {
  CreatedKeySchema,
  CreateKeyBodySchema,
  KeyIdParamsSchema,
  KeyListSchema,
  KeySchema,
  KeyWithWindowSchema,
  UpdateKeyBodySchema,
} from './keys.schemas.ts';
import type { z } from '../../schemas/zod.ts';

const tags = ['Keys'];
const iso = (date: Date | null) => date?.toISOString() ?? null;

/** A key as the API shows it: never its secret. */
function keyBody(row: ApiKeyRow) {
  const { policy } = principalKeyOf(row);
  return {
    id: row.id,
    name: row.name,
    prefix: row.keyPrefix,
    created_at: row.createdAt.toISOString(),
    expires_at: iso(row.expiresAt),
    last_used_at: iso(row.lastUsedAt),
    revoked_at: iso(row.revokedAt),
    scopes: principalKeyOf(row).scopes,
    policy: policy && policyBody(policy),
    parent_id: row.parentId,
    oauth_client_id: row.oauthClientId,
  };
}

/** A key and its budget window now (GET /keys, /keys/{id}, /keys/current). */
const keyWithWindowBody = ({ row, window }: KeyWithWindow) => ({
  ...keyBody(row),
  window: window.window,
  spent: usdNumber(window.charged),
  reserved: usdNumber(window.reserved),
  remaining: window.remaining === null ? null : usdNumber(window.remaining),
  window_started_at: window.start.toISOString(),
  resets_at: iso(window.resetsAt),
});

const policyBody = (policy: KeyPolicy) => ({
  ...(policy.budget && { budget: { amount: usdNumber(policy.budget.amountMicros), window: policy.budget.window } }),
  ...(policy.models && { models: policy.models }),
  ...(policy.types && { types: policy.types }),
  ...(policy.maxCostPerTaskMicros !== undefined && { max_cost_per_task: usdNumber(policy.maxCostPerTaskMicros) }),
  ...(policy.rateLimitPerMinute !== undefined && { rate_limit_per_minute: policy.rateLimitPerMinute }),
});

type KeyBody = z.infer<typeof UpdateKeyBodySchema>;

/** The request's fields as the service takes them (absent: unchanged or inherited). */
export const changesOf = (body: KeyBody): KeyChanges => ({
  ...(body.name !== undefined && { name: body.name }),
  ...(body.scopes !== undefined && { scopes: body.scopes }),
  ...(body.expires_at !== undefined && { expiresAt: body.expires_at === null ? null : new Date(body.expires_at) }),
  ...(body.policy !== undefined && {
    policy: body.policy && {
      ...(body.policy.budget && {
        budget: { amountMicros: body.policy.budget.amount, window: body.policy.budget.window },
      }),
      ...(body.policy.models && { models: body.policy.models }),
      ...(body.policy.types && { types: body.policy.types }),
      ...(body.policy.max_cost_per_task !== undefined && { maxCostPerTaskMicros: body.policy.max_cost_per_task }),
      ...(body.policy.rate_limit_per_minute !== undefined && {
        rateLimitPerMinute: body.policy.rate_limit_per_minute,
      }),
    },
  }),
});

/** The key a keys endpoint acts for; a caller without one (a wallet's sign-in session) manages no keys. */
export function holderOf(principal: Principal): KeyHolder {
  if (!principal.apiKey)
    throw new ApiError('forbidden', 'Keys are managed with an API key; a wallet session has none.');
  return { account: principal.account, key: principal.apiKey };
}

/** The account tier's generations a minute (none: unlimited), which a key's own limit may not exceed. */
export function tierRatePerMinute(config: Config, tier: string | null): number | null {
  const limit = config.rateLimits.admissions[(tier ?? 'free') as Tier] ?? 0;
  return limit === 0 ? null : Math.floor((limit * 60) / config.rateLimits.windowSeconds);
}

export const keyEndpoints = [
  defineEndpoint({
    method: 'post',
    path: '/keys',
    operationId: 'createKey',
    summary: 'Create an API key',
    description:
      "Gateway extension. Creates a key of the calling key's account (`sk_…` for a developer, `rf_…` for an agent), answered 201 with its secret in `api_key` this once. Needs the `keys` scope. The new key is never wider than the calling key: its `scopes` (default: the caller's but `keys`, which is given only when asked for), its `policy` (what the caller limits and the request leaves out is kept: `budget` `{amount, window}` with `window` one of day, week, month (UTC calendar windows) or total, within the caller's when its amount is not larger and its window not shorter; `models`, `types`, `max_cost_per_task`, `rate_limit_per_minute`, at most the account tier's) and its `expires_at` (default: the caller's) stay within the caller's, else 403 `forbidden` naming the field. A task of a sub-key counts against its own budget and every budget above it, and its generations against every `rate_limit_per_minute` above it; a key acts with at most the scopes and expiry of every key above it, and stops when any of them is revoked or expires.",
    tags,
    auth: 'any',
    scope: 'keys',
    request: { body: CreateKeyBodySchema },
    success: { status: 201, description: 'The key, with its secret shown this once', schema: CreatedKeySchema },
    errors: ['forbidden'],
    handle: async ({ body, principal, ctx }) => {
      const name = body.name;
      const issued = await createKey(
        ctx.prisma,
        holderOf(principal),
        { ...changesOf(body), name },
        tierRatePerMinute(ctx.config, principal.account.tier),
      );
      return { status: 201, body: { ...keyBody(issued.row), api_key: issued.key } };
    },
  }),
  defineEndpoint({
    method: 'get',
    path: '/keys',
    operationId: 'listKeys',
    summary: 'The API keys this key manages',
    description:
      'Gateway extension. The keys the calling key manages, oldest first, never their secrets: itself, and the keys of the account within its own scopes, policy and expiry (for a key with a policy, only the keys it created, and theirs), never a key above it. Needs the `keys` scope.',
    tags,
    auth: 'any',
    errors: ['forbidden'],
    scope: 'keys',
    success: { status: 200, description: 'The keys, oldest first, never their secrets', schema: KeyListSchema },
    handle: async ({ principal, ctx }) => ({
      body: { keys: (await listKeys(ctx.prisma, holderOf(principal))).map(keyWithWindowBody) },
    }),
  }),
  defineEndpoint({
    method: 'get',
    path: '/keys/current',
    operationId: 'getCurrentKey',
    summary: 'The calling API key, its policy and its budget window',
    description:
      "Gateway extension. The calling key, its policy, and its budget's current window: `spent` (charged), `reserved` (held for tasks running), `remaining` and `resets_at`; for a key without a budget, its whole life's spend and `remaining: null`. A sub-key's tasks count here too. Any scope.",
    tags,
    auth: 'any',
    errors: ['forbidden'],
    // Any key may see its own limits and what is left of them, whatever its scopes.
    scope: 'read',
    success: { status: 200, description: 'The key and its current window', schema: KeyWithWindowSchema },
    handle: async ({ principal, ctx }) => ({
      body: keyWithWindowBody(await currentKey(ctx.prisma, holderOf(principal))),
    }),
  }),
  defineEndpoint({
    method: 'get',
    path: '/keys/{id}',
    operationId: 'getKey',
    summary: 'One API key this key manages',
    description: 'Gateway extension. One key the calling key manages (else 404). Needs the `keys` scope.',
    tags,
    auth: 'any',
    scope: 'keys',
    request: { params: KeyIdParamsSchema },
    success: { status: 200, description: 'The key and its current window', schema: KeyWithWindowSchema },
    errors: ['not_found', 'forbidden'],
    handle: async ({ params, principal, ctx }) => ({
      body: keyWithWindowBody(await showKey(ctx.prisma, holderOf(principal), params.id)),
    }),
  }),
  defineEndpoint({
    method: 'patch',
    path: '/keys/{id}',
    operationId: 'updateKey',
    summary: "Change an API key's name, scopes, policy or expiry",
    description:
      "Gateway extension. Changes a key's `name`, `scopes`, `policy` or `expires_at`, within the calling key's own (a key never widens itself nor changes its own budget: 403 `forbidden` naming the field). Needs the `keys` scope.",
    tags,
    auth: 'any',
    scope: 'keys',
    request: { params: KeyIdParamsSchema, body: UpdateKeyBodySchema },
    success: { status: 200, description: 'The key as changed', schema: KeySchema },
    errors: ['not_found', 'forbidden'],
    handle: async ({ params, body, principal, ctx }) => {
      const maxRate = tierRatePerMinute(ctx.config, principal.account.tier);
      const row = await updateKey(ctx.prisma, holderOf(principal), params.id, changesOf(body), maxRate);
      return { body: keyBody(row) };
    },
  }),
  defineEndpoint({
    method: 'delete',
    path: '/keys/{id}',
    operationId: 'revokeKey',
    summary: 'Revoke an API key (and the keys it created)',
    description:
      'Gateway extension. Revokes a key the calling key manages, and every key it created: refused everywhere within a second. Revoking twice keeps the first time. Needs the `keys` scope.',
    tags,
    auth: 'any',
    scope: 'keys',
    request: { params: KeyIdParamsSchema },
    success: { status: 200, description: 'The key, revoked', schema: KeySchema },
    errors: ['not_found', 'forbidden'],
    handle: async ({ params, principal, ctx }) => ({
      body: keyBody(await revokeKey(ctx.prisma, holderOf(principal), params.id)),
    }),
  }),
];

// A key's scopes and spend policy: what it may do, on which models and types, how much per task, per window and per
// minute. Stored as JSON on the key (amounts as micro-USD strings); a sub-key is never wider than the key that made it.
import { z } from 'zod';
import { DomainError } from '../domain/errors.ts';
import { formatUsd, usdNumber } from '../domain/money.ts';

export const keyScopes = ['generate', 'read', 'keys'] as const;
export type KeyScope = (typeof keyScopes)[number];

/** UTC calendar windows: a day from midnight, a week from Monday, a month from its first, or the key's whole life. */
export const budgetWindows = ['day', 'week', 'month', 'total'] as const;
export type BudgetWindow = (typeof budgetWindows)[number];

export interface KeyPolicy {
  budget?: { amountMicros: bigint; window: BudgetWindow };
  models?: string[];
  types?: string[];
  maxCostPerTaskMicros?: bigint;
  rateLimitPerMinute?: number;
}

const micros = z.string().regex(/^\d+$/).transform(BigInt);
/** The stored form (the `policy` column). */
const storedPolicy = z.object({
  budget: z.object({ amount_micros: micros, window: z.enum(budgetWindows) }).optional(),
  models: z.array(z.string()).optional(),
  types: z.array(z.string()).optional(),
  max_cost_per_task_micros: micros.optional(),
  rate_limit_per_minute: z.number().int().positive().optional(),
});

/** The policy a key row holds; null when it has none (the key is limited only by its account). */
export function policyOf(stored: unknown): KeyPolicy | null {
  if (stored === null || stored === undefined) return null;
  const parsed = storedPolicy.parse(stored);
  const policy: KeyPolicy = {
    ...(parsed.budget && { budget: { amountMicros: parsed.budget.amount_micros, window: parsed.budget.window } }),
    ...(parsed.models && { models: parsed.models }),
    ...(parsed.types && { types: parsed.types }),
    ...(parsed.max_cost_per_task_micros !== undefined && { maxCostPerTaskMicros: parsed.max_cost_per_task_micros }),
    ...(parsed.rate_limit_per_minute !== undefined && { rateLimitPerMinute: parsed.rate_limit_per_minute }),
  };
  return hasLimits(policy) ? policy : null;
}

/** The JSON the `policy` column stores; null for a policy that limits nothing. */
export function storedPolicyOf(policy: KeyPolicy | null): object | null {
  if (!policy || !hasLimits(policy)) return null;
  return {
    ...(policy.budget && {
      budget: { amount_micros: policy.budget.amountMicros.toString(), window: policy.budget.window },
    }),
    ...(policy.models && { models: policy.models }),
    ...(policy.types && { types: policy.types }),
    ...(policy.maxCostPerTaskMicros !== undefined && {
      max_cost_per_task_micros: policy.maxCostPerTaskMicros.toString(),
    }),
    ...(policy.rateLimitPerMinute !== undefined && { rate_limit_per_minute: policy.rateLimitPerMinute }),
  };
}

const hasLimits = (policy: KeyPolicy) => Object.values(policy).some((value) => value !== undefined);

/** A key's own limits, as a sub-key's are checked against them. */
export interface KeyLimits {
  scopes: readonly string[];
  policy: KeyPolicy | null;
  expiresAt: Date | null;
}

// A longer window holds a budget to its amount over more time: `$5 a month` is narrower than `$5 a day`.
const windowLength: Record<BudgetWindow, number> = { day: 1, week: 7, month: 31, total: Number.POSITIVE_INFINITY };

/** Where `wanted` goes beyond `holder` (a field name and why), or null when it stays within. */
export function widening(wanted: KeyLimits, holder: KeyLimits): { field: string; reason: string } | null {
  const extraScope = wanted.scopes.find((scope) => !holder.scopes.includes(scope));
  if (extraScope) return { field: 'scopes', reason: `this key has no ${extraScope} scope to give` };
  if (holder.expiresAt && (!wanted.expiresAt || wanted.expiresAt > holder.expiresAt))
    return { field: 'expires_at', reason: `this key expires at ${holder.expiresAt.toISOString()}` };
  return holder.policy ? policyWidening(wanted.policy ?? {}, holder.policy) : null;
}

function policyWidening(wanted: KeyPolicy, holder: KeyPolicy): { field: string; reason: string } | null {
  const { budget } = holder;
  if (
    budget &&
    (!wanted.budget ||
      wanted.budget.amountMicros > budget.amountMicros ||
      windowLength[wanted.budget.window] < windowLength[budget.window])
  )
    return {
      field: 'policy.budget',
      reason: `this key's budget is $${formatUsd(budget.amountMicros)} per ${budget.window}`,
    };
  for (const field of ['models', 'types'] as const) {
    const allowed = holder[field];
    if (allowed && (!wanted[field] || wanted[field].some((value) => !allowed.includes(value))))
      return { field: `policy.${field}`, reason: `this key allows only ${allowed.join(', ')}` };
  }
  const max = holder.maxCostPerTaskMicros;
  if (max !== undefined && (wanted.maxCostPerTaskMicros === undefined || wanted.maxCostPerTaskMicros > max))
    return { field: 'policy.max_cost_per_task', reason: `this key allows at most $${formatUsd(max)} per task` };
  const rate = holder.rateLimitPerMinute;
  if (rate !== undefined && (wanted.rateLimitPerMinute === undefined || wanted.rateLimitPerMinute > rate))
    return { field: 'policy.rate_limit_per_minute', reason: `this key allows at most ${rate} per minute` };
  return null;
}

export type KeyPolicyCode =
  'scope_required' | 'budget_exceeded' | 'model_not_allowed' | 'type_not_allowed' | 'cost_limit_exceeded';

/** A key's scope or policy refuses the request (403, its own code). */
export class KeyPolicyError extends DomainError {
  override name = 'KeyPolicyError';
  constructor(
    override readonly code: KeyPolicyCode,
    message: string,
    extras: { details?: Record<string, unknown> } = {},
  ) {
    super(code, message, extras);
  }
}

/** The scope an endpoint needs, missing from the calling key. */
export const scopeRequired = (scope: KeyScope) =>
  new KeyPolicyError('scope_required', `This API key lacks the ${scope} scope this endpoint needs.`, {
    details: { scope },
  });

/**
 * What the policy says of a priced request before any money moves: its model, its type and its cost (the budget is
 * checked where the cost is reserved, key-spend.ts). Null: admitted as far as these go.
 */
export function requestRefusal(
  policy: KeyPolicy | null,
  request: { model: string; type: string; costMicros: bigint },
): KeyPolicyError | null {
  if (!policy) return null;
  if (policy.models && !policy.models.includes(request.model))
    return new KeyPolicyError(
      'model_not_allowed',
      `This API key may not use ${request.model}; it allows ${policy.models.join(', ')}.`,
      { details: { model: request.model, allowed: policy.models } },
    );
  if (policy.types && !policy.types.includes(request.type))
    return new KeyPolicyError(
      'type_not_allowed',
      `This API key may not generate ${request.type}; it allows ${policy.types.join(', ')}.`,
      { details: { type: request.type, allowed: policy.types } },
    );
  const max = policy.maxCostPerTaskMicros;
  if (max !== undefined && request.costMicros > max)
    return new KeyPolicyError(
      'cost_limit_exceeded',
      `This request costs $${formatUsd(request.costMicros)}, over this API key's $${formatUsd(max)} per task.`,
      { details: { cost: usdNumber(request.costMicros), limit: usdNumber(max) } },
    );
  return null;
}

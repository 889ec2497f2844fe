// genctl keys create's policy flags: `--budget 5/day --models local/espeak,local/lanczos --types text-to-audio
// --max-cost-per-task 0.10 --rate-limit-per-minute 30 --scopes generate,read`, read into a key's scopes and policy.
import { budgetWindows, type KeyPolicy, type KeyScope, keyScopes } from '../accounts/key-policy.ts';
import { parseUsd } from '../domain/money.ts';
import { CommandError } from './command-error.ts';

export interface KeyOptionValues {
  budget?: string;
  models?: string;
  types?: string;
  'max-cost-per-task'?: string;
  'rate-limit-per-minute'?: string;
  scopes?: string;
}

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

function usd(text: string, flag: string): bigint {
  try {
    return parseUsd(text);
  } catch {
    throw new CommandError(`${flag} must be an amount in USD with at most six decimals, e.g. 5 or 0.25`, 2);
  }
}

function budgetOf(text: string): NonNullable<KeyPolicy['budget']> {
  const [amount, window = ''] = text.split('/');
  if (!(budgetWindows as readonly string[]).includes(window))
    throw new CommandError(`--budget is <USD>/<window>, the window one of ${budgetWindows.join(', ')}: e.g. 5/day`, 2);
  return { amountMicros: usd(amount!, '--budget'), window: window as NonNullable<KeyPolicy['budget']>['window'] };
}

/** The policy the flags set; null when they set none (a key limited only by its account). */
export function policyFromOptions(values: KeyOptionValues): KeyPolicy | null {
  const rate = values['rate-limit-per-minute'];
  if (rate !== undefined && !/^[1-9]\d*$/.test(rate))
    throw new CommandError('--rate-limit-per-minute must be a whole number, at least 1', 2);
  const policy: KeyPolicy = {
    ...(values.budget !== undefined && { budget: budgetOf(values.budget) }),
    ...(values.models !== undefined && { models: list(values.models) }),
    ...(values.types !== undefined && { types: list(values.types) }),
    ...(values['max-cost-per-task'] !== undefined && {
      maxCostPerTaskMicros: usd(values['max-cost-per-task'], '--max-cost-per-task'),
    }),
    ...(rate !== undefined && { rateLimitPerMinute: Number(rate) }),
  };
  return Object.keys(policy).length > 0 ? policy : null;
}

/** The scopes the flag names (default: all of them). */
export function scopesFromOptions(values: KeyOptionValues): KeyScope[] {
  if (values.scopes === undefined) return [...keyScopes];
  const named = list(values.scopes);
  const unknown = named.find((scope) => !(keyScopes as readonly string[]).includes(scope));
  if (unknown || named.length === 0)
    throw new CommandError(`--scopes is a comma-separated list of ${keyScopes.join(', ')}`, 2);
  return named as KeyScope[];
}

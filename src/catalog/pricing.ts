// The one pricing function: (model, request) → bigint micro-USD with a breakdown. Quotes, admission and the
// catalog's cost bands all call it, so the same request always costs the same.
import type { GenerateType } from '../domain/values.ts';
import { formatUsd, parseUsd } from '../domain/money.ts';
import type { CatalogEntry } from './catalog.schema.ts';
import { inputTokensUpperBound } from './input-tokens.ts';

export interface PricingInput {
  resolution?: string;
  duration?: number;
  num_outputs?: number;
  sound?: boolean;
  generate_type?: GenerateType;
  prompt?: string;
  system_prompt?: string;
  messages?: { role: string; content: string }[];
  max_tokens?: number;
  /** What the provider reported using, at settlement; replaces the estimates. */
  usage?: Usage;
  /**
   * Seconds of the media inputs the model's price depends on (`measured_inputs`), as the gateway measured them (the
   * longest, rounded up): it replaces the declared `duration`, and a provider's report never lowers it.
   */
  input_seconds?: number;
}

/** Where the input length a price counts came from: the file itself, the caller's `duration`, or the model's default. */
type InputLength = 'measured' | 'declared' | 'assumed';
const inputLengthOf = (input: PricingInput): InputLength =>
  input.input_seconds !== undefined ? 'measured' : input.duration !== undefined ? 'declared' : 'assumed';

/** Seconds of output of a per-second price: for a model priced on its inputs, the shortest duration covering them. */
function outputSeconds(model: CatalogEntry, input: PricingInput): number | undefined {
  if (!model.measured_inputs || input.input_seconds === undefined) return input.duration ?? defaultDuration(model);
  const measured = input.input_seconds;
  const covering = model.capabilities.durations?.find((seconds) => seconds >= measured);
  if (covering === undefined)
    throw new RangeError(`${model.slug} offers no duration as long as ${measured} s of input`);
  return covering;
}

/** Tokens for text-to-text, seconds of input for per-minute models. */
export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  input_seconds?: number;
}

export type Breakdown = Record<string, string | number | boolean>;

export interface Price {
  micros: bigint;
  breakdown: Breakdown;
}

/** rate × quantity ÷ per, rounded up to the next micro-USD: a price is never rounded in the caller's favour twice. */
const scaled = (rateMicros: bigint, quantity: bigint, per = 1n) => (rateMicros * quantity + per - 1n) / per;

/**
 * The tokens a per-token price counts: what the provider reported (at settlement), else an upper bound of the input
 * (never above the context window, which no provider bills past) and the most output the request allows.
 */
export function pricedTokens(model: CatalogEntry, input: PricingInput) {
  const rule = model.pricing;
  const defaultMaxTokens = rule.kind === 'per_token' ? rule.default_max_tokens : 0;
  const contextWindow = model.capabilities.context_window_tokens ?? Number.POSITIVE_INFINITY;
  return {
    input_tokens: input.usage?.input_tokens ?? Math.min(inputTokensUpperBound(input), contextWindow),
    output_tokens: input.usage?.output_tokens ?? input.max_tokens ?? defaultMaxTokens,
    measured: input.usage?.output_tokens !== undefined,
  };
}

export const defaultResolution = (model: CatalogEntry) => model.capabilities.resolutions?.[0];
export const defaultDuration = (model: CatalogEntry) => model.capabilities.durations?.[0];

function tier(table: Record<string, string>, resolution: string | undefined, model: CatalogEntry): [string, string] {
  const chosen = resolution ?? defaultResolution(model) ?? Object.keys(table)[0]!;
  const rate = table[chosen];
  if (rate === undefined) throw new RangeError(`${model.slug} has no price for resolution ${chosen}`);
  return [chosen, rate];
}

function basePrice(model: CatalogEntry, input: PricingInput): Price {
  const rule = model.pricing;
  const outputs = BigInt(input.num_outputs ?? 1);
  // Models priced on an input's length say where that length came from (a quote carries no file to measure).
  const inputLength: Breakdown = model.measured_inputs ? { input_length: inputLengthOf(input) } : {};
  if (input.input_seconds !== undefined) inputLength.input_seconds = input.input_seconds;
  switch (rule.kind) {
    case 'flat':
      return { micros: parseUsd(rule.usd), breakdown: { rule: rule.kind, unit_usd: rule.usd } };
    case 'per_output':
      return {
        micros: parseUsd(rule.usd) * outputs,
        breakdown: { rule: rule.kind, unit_usd: rule.usd, num_outputs: Number(outputs) },
      };
    case 'per_output_by_resolution': {
      const [resolution, rate] = tier(rule.usd_by_resolution, input.resolution, model);
      return {
        micros: parseUsd(rate) * outputs,
        breakdown: { rule: rule.kind, resolution, unit_usd: rate, num_outputs: Number(outputs) },
      };
    }
    case 'per_second':
    case 'per_second_by_resolution': {
      const seconds = outputSeconds(model, input);
      if (seconds === undefined) throw new RangeError(`${model.slug} is priced per second but has no duration`);
      const [resolution, rate] =
        rule.kind === 'per_second' ? [undefined, rule.usd] : tier(rule.usd_by_resolution, input.resolution, model);
      return {
        micros: parseUsd(rate) * BigInt(seconds) * outputs,
        breakdown: {
          rule: rule.kind,
          ...(resolution ? { resolution } : {}),
          usd_per_second: rate,
          duration_seconds: seconds,
          num_outputs: Number(outputs),
          ...inputLength,
        },
      };
    }
    case 'per_1k_characters': {
      const text = input.prompt;
      const characters = text ? text.length : rule.assumed_characters;
      return {
        micros: scaled(parseUsd(rule.usd), BigInt(characters), 1000n),
        breakdown: { rule: rule.kind, usd_per_1k_characters: rule.usd, characters, characters_assumed: !text },
      };
    }
    case 'per_minute_of_input': {
      const reported = input.usage?.input_seconds;
      // The measured length is what the upstream bills: a report of less never lowers the charge below it.
      const seconds =
        input.input_seconds !== undefined ? Math.max(input.input_seconds, reported ?? 0) : (reported ?? input.duration);
      const minutes = seconds === undefined ? rule.reserved_minutes : Math.max(1, Math.ceil(seconds / 60));
      return {
        micros: parseUsd(rule.usd) * BigInt(minutes),
        breakdown: {
          rule: rule.kind,
          usd_per_minute: rule.usd,
          minutes,
          minutes_assumed: seconds === undefined,
          ...inputLength,
        },
      };
    }
    case 'per_token': {
      const { input_tokens: inputTokens, output_tokens: outputTokens, measured } = pricedTokens(model, input);
      const inputMicros = scaled(parseUsd(rule.usd_per_million_input), BigInt(inputTokens), 1_000_000n);
      const outputMicros = scaled(parseUsd(rule.usd_per_million_output), BigInt(outputTokens), 1_000_000n);
      return {
        micros: inputMicros + outputMicros,
        breakdown: {
          rule: rule.kind,
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          tokens_measured: measured,
          usd_per_million_input: rule.usd_per_million_input,
          usd_per_million_output: rule.usd_per_million_output,
          input_usd: formatUsd(inputMicros),
          output_usd: formatUsd(outputMicros),
        },
      };
    }
  }
}

export function priceRequest(model: CatalogEntry, input: PricingInput): Price {
  const base = basePrice(model, input);
  const breakdown: Breakdown = { ...base.breakdown, base_usd: formatUsd(base.micros) };
  let micros = base.micros;
  const surcharges = model.surcharges ?? {};
  if (input.sound && surcharges.sound_usd_per_second) {
    const seconds = input.duration ?? defaultDuration(model) ?? 0;
    const sound = parseUsd(surcharges.sound_usd_per_second) * BigInt(seconds) * BigInt(input.num_outputs ?? 1);
    micros += sound;
    breakdown.sound_usd = formatUsd(sound);
  }
  const generateType = input.generate_type;
  const generateTypeUsd = generateType ? surcharges.generate_type_usd?.[generateType] : undefined;
  if (generateType && generateTypeUsd) {
    const extra = parseUsd(generateTypeUsd);
    micros += extra;
    breakdown.generate_type = generateType;
    breakdown.generate_type_usd = formatUsd(extra);
  }
  breakdown.total_usd = formatUsd(micros);
  return { micros, breakdown };
}

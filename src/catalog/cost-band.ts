// A model's `cost` band: the least and the most the pricing function charges over everything the model accepts.
import type { CatalogEntry } from './catalog.schema.ts';
import { type PricingInput, priceRequest } from './pricing.ts';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The extreme inputs a rule can see besides the capability options: text length, input minutes, tokens. */
function ruleExtremes(model: CatalogEntry): PricingInput[] {
  const rule = model.pricing;
  switch (rule.kind) {
    case 'per_1k_characters':
      return [{ prompt: 'x' }, { prompt: 'x'.repeat(rule.max_characters) }];
    case 'per_minute_of_input':
      return [{ duration: 1 }, { duration: rule.max_minutes * 60 }];
    case 'per_token': {
      const maxOutput = model.capabilities.max_output_tokens ?? rule.default_max_tokens;
      const maxInput = Math.max(0, (model.capabilities.context_window_tokens ?? maxOutput) - maxOutput);
      return [
        { usage: { input_tokens: 0, output_tokens: 1 } },
        { usage: { input_tokens: maxInput, output_tokens: maxOutput } },
      ];
    }
    default:
      return [{}];
  }
}

/** Every combination of the model's options (they are few), priced; the band is their min and max. */
export function costBand(model: CatalogEntry): { min: bigint; max: bigint } {
  const caps = model.capabilities;
  const options = {
    resolution: caps.resolutions ?? [undefined],
    duration: model.pricing.kind === 'per_minute_of_input' ? [undefined] : (caps.durations ?? [undefined]),
    num_outputs: range(1, caps.max_outputs ?? 1),
    sound: caps.supports_sound ? [false, true] : [false],
    generate_type: caps.generate_types ?? [undefined],
  };
  let min: bigint | undefined;
  let max: bigint | undefined;
  for (const resolution of options.resolution) {
    for (const duration of options.duration) {
      for (const num_outputs of options.num_outputs) {
        for (const sound of options.sound) {
          for (const generate_type of options.generate_type) {
            for (const extreme of ruleExtremes(model)) {
              const { micros } = priceRequest(model, {
                resolution,
                duration,
                num_outputs,
                sound,
                generate_type,
                ...extreme,
              });
              if (min === undefined || micros < min) min = micros;
              if (max === undefined || micros > max) max = micros;
            }
          }
        }
      }
    }
  }
  return { min: min!, max: max! };
}

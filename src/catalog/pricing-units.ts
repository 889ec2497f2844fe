// What a price counted, in the model's own pricing units (images, output seconds, characters, tokens, …): the usage
// report's `units`, read from the breakdown priceRequest gave, so a unit is counted exactly as it was priced.
import type { Breakdown } from './pricing.ts';
import type { CatalogEntry } from './catalog.schema.ts';

/** Every unit a price can count; the usage aggregates keep one column of each. */
export const pricingUnitNames = [
  'requests',
  'images',
  'videos',
  'audio_files',
  'models_3d',
  'texts',
  'output_seconds',
  'characters',
  'input_minutes',
  'input_tokens',
  'output_tokens',
] as const;
export type PricingUnit = (typeof pricingUnitNames)[number];
export type PricingUnits = Partial<Record<PricingUnit, number>>;

/** A per-output price counts files of the model's first output modality. */
const outputUnit: Record<string, PricingUnit> = {
  image: 'images',
  video: 'videos',
  audio: 'audio_files',
  '3d': 'models_3d',
  text: 'texts',
};

const count = (value: Breakdown[string] | undefined) => (typeof value === 'number' ? value : 0);

export function pricingUnits(model: CatalogEntry, breakdown: Breakdown): PricingUnits {
  switch (model.pricing.kind) {
    case 'flat':
      return { requests: 1 };
    case 'per_output':
    case 'per_output_by_resolution': {
      const unit = outputUnit[model.capabilities.output_modalities[0] ?? ''] ?? 'requests';
      return { [unit]: count(breakdown.num_outputs) };
    }
    case 'per_second':
    case 'per_second_by_resolution':
      return { output_seconds: count(breakdown.duration_seconds) * count(breakdown.num_outputs) };
    case 'per_1k_characters':
      return { characters: count(breakdown.characters) };
    case 'per_minute_of_input':
      return { input_minutes: count(breakdown.minutes) };
    case 'per_token':
      return { input_tokens: count(breakdown.input_tokens), output_tokens: count(breakdown.output_tokens) };
  }
}

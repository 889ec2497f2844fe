// Checks a request against what its model can do; each problem names the request field.
import type { CatalogEntry } from './catalog.schema.ts';
import type { PricingInput } from './pricing.ts';

export interface FieldProblem {
  field: string;
  message: string;
}

export interface CapabilityInput extends PricingInput {
  aspect_ratio?: string;
}

/**
 * Whether a model's output has sound: `optional` where the caller chooses (`supports_sound`, with a surcharge),
 * `always` where sound is among its outputs anyway (Sora, speech, music), else `never`.
 */
export function soundOffer(model: Pick<CatalogEntry, 'capabilities'>): 'optional' | 'always' | 'never' {
  const caps = model.capabilities;
  if (caps.supports_sound) return 'optional';
  return caps.output_modalities.includes('audio') ? 'always' : 'never';
}

const list = (values: readonly (string | number)[]) => values.join(', ');

export function capabilityProblems(model: CatalogEntry, input: CapabilityInput): FieldProblem[] {
  const { capabilities: caps, pricing } = model;
  const problems: FieldProblem[] = [];
  const refuse = (field: string, message: string) =>
    problems.push({ field, message: `${message} (model ${model.slug})` });

  if (input.resolution !== undefined && !caps.resolutions?.includes(input.resolution)) {
    refuse(
      'resolution',
      caps.resolutions ? `must be one of ${list(caps.resolutions)}` : 'this model takes no resolution',
    );
  }
  if (input.aspect_ratio !== undefined && !caps.aspect_ratios?.includes(input.aspect_ratio)) {
    refuse(
      'aspect_ratio',
      caps.aspect_ratios ? `must be one of ${list(caps.aspect_ratios)}` : 'this model takes no aspect ratio',
    );
  }
  if (input.duration !== undefined) {
    if (pricing.kind === 'per_minute_of_input') {
      if (input.duration > pricing.max_minutes * 60)
        refuse('duration', `input audio is limited to ${pricing.max_minutes * 60} seconds`);
    } else if (!caps.durations) {
      refuse('duration', 'this model takes no duration');
    } else if (!caps.durations.includes(input.duration)) {
      refuse('duration', `must be one of ${list(caps.durations)} seconds`);
    }
  }
  const maxOutputs = caps.max_outputs ?? 1;
  if (input.num_outputs !== undefined && input.num_outputs > maxOutputs)
    refuse('num_outputs', `must be at most ${maxOutputs}`);
  const sound = soundOffer(model);
  if (input.sound === true && sound === 'never') refuse('sound', 'this model does not generate sound');
  if (input.sound === false && sound === 'always') refuse('sound', 'this model always generates sound');
  if (input.generate_type !== undefined && !caps.generate_types?.includes(input.generate_type)) {
    refuse(
      'generate_type',
      caps.generate_types ? `must be one of ${list(caps.generate_types)}` : 'this model takes no generate_type',
    );
  }
  if (
    input.max_tokens !== undefined &&
    caps.max_output_tokens !== undefined &&
    input.max_tokens > caps.max_output_tokens
  ) {
    refuse('max_tokens', `must be at most ${caps.max_output_tokens}`);
  }
  if (
    pricing.kind === 'per_1k_characters' &&
    input.prompt !== undefined &&
    input.prompt.length > pricing.max_characters
  ) {
    refuse('prompt', `must be at most ${pricing.max_characters} characters`);
  }
  return problems;
}

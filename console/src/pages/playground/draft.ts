// The playground's form as it is being filled in, and the generation request (and the quote's) it makes.
import type { components } from '../../api/schema';
import type { Model } from '../../catalog/use-models';
import { type GenerationRequest, inputsOf, type MediaField } from './inputs';

export interface Draft {
  type: GenerationRequest['type'];
  model: string;
  prompt: string;
  media: Partial<Record<MediaField, string>>;
  aspect_ratio?: string;
  resolution?: string;
  duration?: number;
  num_outputs?: number;
  sound?: boolean;
  generate_type?: GenerationRequest['generate_type'];
}

/** A fresh draft for `model`: its own options left at the model's defaults (absent). */
export const draftFor = (model: Model, prompt = ''): Draft => ({
  type: model.type as Draft['type'],
  model: model.id,
  prompt,
  media: {},
});

export function requestOf(draft: Draft): GenerationRequest {
  const { media, prompt, ...options } = draft;
  const inputs = inputsOf(draft.type);
  const request: GenerationRequest = { ...options };
  if (inputs.prompt !== 'none' && prompt.trim()) request.prompt = prompt.trim();
  for (const { field } of inputs.media) {
    const url = media[field]?.trim();
    if (!url) continue;
    if (field === 'images') request.images = [url];
    else request[field] = url;
  }
  for (const name of Object.keys(request) as (keyof GenerationRequest)[])
    if (request[name] === undefined) delete request[name];
  return request;
}

export const quoteOf = (request: GenerationRequest): components['schemas']['AgentQuoteRequest'] => ({
  type: request.type,
  model: request.model,
  resolution: request.resolution,
  duration: request.duration,
  num_outputs: request.num_outputs,
  sound: request.sound,
  generate_type: request.generate_type,
});

/** What must be filled in before Generate: the prompt when required, every media input. */
export function missing(draft: Draft): string[] {
  const inputs = inputsOf(draft.type);
  const gaps = inputs.media.filter(({ field }) => !draft.media[field]?.trim()).map(({ label }) => label);
  return inputs.prompt === 'required' && !draft.prompt.trim() ? ['Prompt', ...gaps] : gaps;
}

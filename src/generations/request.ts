// One internal request from either layout of POST /generations, with text-to-text messages folded into
// system_prompt + prompt, and the inputs each generation type needs checked (each problem names its field).
import { createHash } from 'node:crypto';
import type { FieldProblem } from '../catalog/capabilities.ts';
import type { CatalogModel } from '../catalog/catalog.ts';
import type { GenerationRequest, InputLayoutRequest } from '../domain/generation-request.ts';
import type { GenerationType } from '../domain/values.ts';

export function normaliseLayout(
  body: GenerationRequest | InputLayoutRequest,
  typeOfModel: (model: string) => GenerationType | undefined,
): GenerationRequest {
  if ('input' in body) {
    // An unknown model leaves the type unset; resolving the model then names the model as the problem.
    const type = body.type ?? typeOfModel(body.model);
    const { webhook, webhook_events } = body;
    return { ...body.input, model: body.model, type: type as GenerationType, webhook_url: webhook, webhook_events };
  }
  return body;
}

/**
 * text-to-text without `prompt`: the system messages, joined by blank lines, become `system_prompt` (after any
 * given one); the other messages become `prompt` as a transcript of "User: …" / "Assistant: …" paragraphs.
 */
export function foldMessages(request: GenerationRequest): GenerationRequest {
  if (request.type !== 'text-to-text' || request.prompt !== undefined || !request.messages?.length) return request;
  const label = { user: 'User', assistant: 'Assistant' } as const;
  const system = request.messages.filter((message) => message.role === 'system').map((message) => message.content);
  const dialogue = request.messages
    .filter((message) => message.role !== 'system')
    .map((message) => `${label[message.role as 'user' | 'assistant']}: ${message.content}`);
  const systemPrompt = [request.system_prompt, ...system]
    .filter((text) => text !== undefined && text !== '')
    .join('\n\n');
  return { ...request, prompt: dialogue.join('\n\n'), ...(systemPrompt ? { system_prompt: systemPrompt } : {}) };
}

const needs: Partial<Record<GenerationRequest['type'], (request: GenerationRequest) => FieldProblem | null>> = {};
const needImage = (request: GenerationRequest) =>
  request.image_url || request.images?.length
    ? null
    : { field: 'image_url', message: `${request.type} needs image_url or images` };
const needPrompt = (request: GenerationRequest) =>
  request.prompt?.trim() ? null : { field: 'prompt', message: `${request.type} needs a prompt` };
for (const type of [
  'image-to-image',
  'image-to-video',
  'upscale',
  'image-to-3d',
  'reference-to-video',
  'subject-to-video',
] as const)
  needs[type] = needImage;
for (const type of ['text-to-image', 'text-to-video', 'text-to-music', 'text-to-audio', 'text-to-3d'] as const)
  needs[type] = needPrompt;
needs['video-to-video'] = (request) =>
  request.video_url || request.videos?.length
    ? null
    : { field: 'video_url', message: 'video-to-video needs video_url or videos' };
// Two pictures: the one whose face is replaced, and the face to put into it.
needs['face-swap'] = (request) =>
  !request.image_url
    ? { field: 'image_url', message: 'face-swap needs image_url: the picture whose face is replaced' }
    : !request.images?.length
      ? { field: 'images', message: 'face-swap needs images: the face to put into image_url' }
      : null;
needs['lip-sync'] = (request) =>
  !request.video_url
    ? { field: 'video_url', message: 'lip-sync needs video_url' }
    : !request.audio_url
      ? { field: 'audio_url', message: 'lip-sync needs audio_url' }
      : null;
for (const type of ['audio-to-audio', 'speech-to-text'] as const)
  needs[type] = (request) =>
    request.audio_url ? null : { field: 'audio_url', message: `${request.type} needs audio_url` };
needs['text-to-text'] = (request) =>
  request.prompt?.trim() || request.messages?.length
    ? null
    : { field: 'prompt', message: 'text-to-text needs prompt or messages' };

const given = (value: unknown) =>
  Array.isArray(value) ? value.length > 0 : typeof value === 'string' ? value.trim() !== '' : value !== undefined;

/** What the request lacks for its generation type and for its model (`inputs` in the catalog). */
export function missingInputs(request: GenerationRequest, model: Pick<CatalogModel, 'id' | 'inputs'>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const problem = needs[request.type]?.(request);
  if (problem) problems.push(problem);
  for (const field of model.inputs.required) {
    if (!given(request[field]) && problem?.field !== field)
      problems.push({ field, message: `${model.id} needs ${field}` });
  }
  for (const field of model.inputs.single) {
    const count = request[field]?.length ?? 0;
    if (count > 1) problems.push({ field, message: `${model.id} takes one item in ${field}, not ${count}` });
  }
  return problems;
}

/** Every media input given by URL, with the field that names it (`images.1` for the second of `images`). */
export function inputUrls(request: GenerationRequest): { field: string; url: string }[] {
  const single = (['image_url', 'video_url', 'audio_url'] as const).flatMap((field) =>
    request[field] ? [{ field, url: request[field] }] : [],
  );
  const listed = (['images', 'videos'] as const).flatMap((field) =>
    (request[field] ?? []).map((url, index) => ({ field: `${field}.${index}`, url })),
  );
  return [...single, ...listed];
}

/** Same request, same hash, whatever the key order: an Idempotency-Key may only be replayed with the same request. */
export function requestHash(request: GenerationRequest): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
          .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
      );
    }
    return value;
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(request)))
    .digest('hex');
}

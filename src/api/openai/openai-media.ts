// POST /openai/v1/audio/speech and /images/generations: each a generation task of the gateway (charged, in the
// history, under the key's policies and budget), answered once it ended, in OpenAI's shapes.
import { buffer, text } from 'node:stream/consumers';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AdapterExchange } from '../adapter-call.ts';
import { ApiError, validationError } from '../errors.ts';
import { type Form, isMultipart, readForm } from './form-body.ts';
import { sizeFields } from './media-sizes.ts';
import type { ParamNames } from './openai-errors.ts';
import { createGeneration, endedGeneration, failureOf, type Generation, openOutput } from './task-answers.ts';

/** The header naming the task a call made, so the console, the history and genctl find it. */
export const taskIdHeader = 'X-Generation-Id';

const model = z.string().min(1).max(200);

export const SpeechBodySchema = z.looseObject({
  model,
  input: z.string().min(1),
  voice: z.string().optional(),
  response_format: z.string().optional(),
});

export const ImageBodySchema = z.looseObject({
  model,
  prompt: z.string().min(1),
  n: z.int().min(1).max(10).optional(),
  size: z
    .string()
    .regex(/^\d+x\d+$/, 'a size is WIDTHxHEIGHT')
    .optional(),
  response_format: z.enum(['url', 'b64_json']).optional(),
});

/** Which OpenAI field each field of the gateway's request was made from, for the refusals' `param`. */
export const speechParams: ParamNames = { prompt: 'input', model: 'model' };
export const imageParams: ParamNames = { prompt: 'prompt', num_outputs: 'n', resolution: 'size', aspect_ratio: 'size' };

export function parsed<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw validationError(result.error, 'body');
  return result.data;
}

/** Runs the generation to its end, naming its task on the answer whatever comes of it. */
export async function generated(
  adapter: AdapterExchange,
  res: Response,
  body: Record<string, unknown>,
): Promise<Generation> {
  const queued = await createGeneration(adapter, body);
  res.set(taskIdHeader, queued.id);
  const ended = await endedGeneration(adapter, queued.id);
  if (ended.status !== 'completed') throw failureOf(ended);
  return ended;
}

/** The speech's audio bytes, in the engine's own format and type (`response_format` is taken as a wish). */
export async function speech(adapter: AdapterExchange, res: Response, raw: unknown): Promise<void> {
  const body = parsed(SpeechBodySchema, raw);
  const ended = await generated(adapter, res, { type: 'text-to-audio', model: body.model, prompt: body.input });
  const output = await openOutput(adapter, ended.outputs![0]!);
  res.status(200).type(output.contentType);
  output.body.pipe(res);
}

/** The images of a completed task, as links or inline (`b64_json`, read from the store). */
async function imagesAnswer(adapter: AdapterExchange, ended: Generation, format: 'url' | 'b64_json' | undefined) {
  const data = await Promise.all(
    (ended.outputs ?? []).map(async (url) =>
      format === 'b64_json'
        ? { b64_json: (await buffer((await openOutput(adapter, url)).body)).toString('base64') }
        : { url },
    ),
  );
  return { created: Math.floor(new Date(ended.created_at).getTime() / 1000), data };
}

export async function images(adapter: AdapterExchange, res: Response, raw: unknown) {
  const body = parsed(ImageBodySchema, raw);
  const size = sizeFields(body.size, adapter.ctx.catalog.get(body.model));
  const ended = await generated(adapter, res, {
    type: 'text-to-image',
    model: body.model,
    prompt: body.prompt,
    ...(body.n ? { num_outputs: body.n } : {}),
    ...size,
  });
  return imagesAnswer(adapter, ended, body.response_format);
}

/** A multipart body's fields and files; anything else is refused, naming what is asked for. */
async function formOf(adapter: AdapterExchange, req: Request, fileParts: string[]): Promise<Form> {
  if (!isMultipart(req))
    throw new ApiError('validation_error', 'Invalid body: body: send multipart/form-data, as the OpenAI clients do.');
  return readForm(adapter, req, fileParts);
}

const EditFieldsSchema = z.looseObject({
  model,
  prompt: z.string().optional(),
  n: z.coerce.number().int().min(1).max(10).optional(),
  size: ImageBodySchema.shape.size,
  response_format: ImageBodySchema.shape.response_format,
});

export const editParams: ParamNames = {
  'input.prompt': 'prompt',
  'input.image_url': 'image',
  'input.num_outputs': 'n',
  'input.resolution': 'size',
  'input.aspect_ratio': 'size',
};

/** An image model that takes an image (an edit, an upscale): the model's own type, the file as its `image_url`. */
export async function imageEdit(adapter: AdapterExchange, req: Request, res: Response) {
  const form = await formOf(adapter, req, ['image', 'image[]']);
  const body = parsed(EditFieldsSchema, form.fields);
  const image = form.files.image ?? form.files['image[]'];
  if (!image) throw new ApiError('validation_error', 'Invalid body: image: the image to edit is required.');
  const input = {
    image_url: image,
    ...(body.prompt ? { prompt: body.prompt } : {}),
    ...(body.n ? { num_outputs: body.n } : {}),
    ...sizeFields(body.size, adapter.ctx.catalog.get(body.model)),
  };
  const ended = await generated(adapter, res, { model: body.model, input });
  return imagesAnswer(adapter, ended, body.response_format);
}

const TranscriptionFieldsSchema = z.looseObject({
  model,
  response_format: z.enum(['json', 'text']).optional(),
});

export const transcriptionParams: ParamNames = { 'input.audio_url': 'file' };

/** A speech-to-text model on the recording: `{ text }`, or the text alone (`response_format: text`). */
export async function transcription(adapter: AdapterExchange, req: Request, res: Response) {
  const form = await formOf(adapter, req, ['file']);
  const body = parsed(TranscriptionFieldsSchema, form.fields);
  if (!form.files.file) throw new ApiError('validation_error', 'Invalid body: file: the recording is required.');
  const ended = await generated(adapter, res, { model: body.model, input: { audio_url: form.files.file } });
  const said = await text((await openOutput(adapter, ended.outputs![0]!)).body);
  if (body.response_format === 'text') {
    res.status(200).type('text/plain').send(said);
    return undefined;
  }
  return { text: said };
}

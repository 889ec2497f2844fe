// OpenAI's Videos API on the gateway's tasks: POST /videos (JSON, or multipart with `input_reference`, the image an
// image-to-video model starts from), GET /videos/{id}, GET /videos, GET /videos/{id}/content (the MP4), and DELETE
// /videos/{id}, which cancels a video still being made (refunded). The video's id is the task's: the console, the
// history and genctl know it.
import type { Request, Response } from 'express';
import { z } from 'zod';
import { encodeHistoryCursor } from '../../generations/history-cursor.ts';
import { hasEnded } from '../../domain/values.ts';
import { type AdapterExchange, run } from '../adapter-call.ts';
import { ApiError } from '../errors.ts';
import { durationField, sizeFields } from './media-sizes.ts';
import { type Form, isMultipart, readForm } from './form-body.ts';
import type { ParamNames } from './openai-errors.ts';
import { parsed, taskIdHeader } from './openai-media.ts';
import { type Generation, openOutput } from './task-answers.ts';

export const VideoBodySchema = z.looseObject({
  model: z.string().min(1).max(200),
  prompt: z.string().min(1),
  seconds: z.union([z.string(), z.number()]).transform(String).optional(),
  size: z
    .string()
    .regex(/^\d+x\d+$/, 'a size is WIDTHxHEIGHT')
    .optional(),
});

/** Which OpenAI field each field of the gateway's request was made from. */
export const videoParams: ParamNames = {
  'input.prompt': 'prompt',
  'input.image_url': 'input_reference',
  'input.duration': 'seconds',
  'input.aspect_ratio': 'size',
  'input.resolution': 'size',
};

const videoTypes = new Set(['text-to-video', 'image-to-video', 'video-to-video']);

type VideoTask = Generation & {
  type?: string;
  prompt?: string;
  duration?: number;
  aspect_ratio?: string;
  resolution?: string;
  completed_at?: string;
  outputs_expire_at?: string;
};

const unix = (iso: string | undefined) => (iso ? Math.floor(new Date(iso).getTime() / 1000) : null);

const statuses: Record<string, string> = {
  queued: 'queued',
  processing: 'in_progress',
  completed: 'completed',
  failed: 'failed',
};

function videoOf(task: VideoTask) {
  return {
    id: task.id,
    object: 'video' as const,
    model: task.model,
    status: statuses[task.status] ?? task.status,
    progress: task.status === 'completed' ? 100 : (task.progress?.percent ?? 0),
    created_at: unix(task.created_at),
    completed_at: hasEnded(task.status) ? unix(task.completed_at) : null,
    expires_at: unix(task.outputs_expire_at),
    prompt: task.prompt ?? null,
    seconds: task.duration === undefined ? null : String(task.duration),
    size: task.resolution ?? task.aspect_ratio ?? null,
    error: task.status === 'failed' ? { code: 'generation_failed', message: task.error ?? 'The video failed.' } : null,
    remixed_from_video_id: null,
  };
}

/** The caller's task of that id, read with its key; a task that is not a video is not found here. */
async function videoTask(adapter: AdapterExchange, id: string): Promise<VideoTask> {
  const task = (await run(adapter, 'getGeneration', { params: { id } })).body as VideoTask;
  if (task.type && !videoTypes.has(task.type)) throw new ApiError('not_found', `No video ${id}.`);
  return task;
}

export async function createVideo(adapter: AdapterExchange, req: Request, res: Response) {
  const form: Form = isMultipart(req)
    ? await readForm(adapter, req, ['input_reference'])
    : { fields: req.body as Form['fields'], files: {} };
  const body = parsed(VideoBodySchema, form.fields);
  const model = adapter.ctx.catalog.get(body.model);
  const image = form.files.input_reference;
  // The input layout: the model's own type, text-to-video or (with the image) image-to-video.
  const request = {
    model: body.model,
    input: {
      prompt: body.prompt,
      ...(image ? { image_url: image } : {}),
      ...durationField(body.seconds, model),
      ...sizeFields(body.size, model),
    },
  };
  const queued = (await run(adapter, 'createGeneration', { body: request, hasBody: true })).body as Generation;
  res.set(taskIdHeader, queued.id);
  return videoOf(await videoTask(adapter, queued.id));
}

export const retrieveVideo = async (adapter: AdapterExchange, id: string) => videoOf(await videoTask(adapter, id));

const ListQuerySchema = z.looseObject({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  after: z.string().optional(),
  order: z.enum(['asc', 'desc']).optional(),
});

/** The caller's videos, newest first, a page of the history at a time (`after`: the last id of the page before). */
export async function listVideos(adapter: AdapterExchange, rawQuery: unknown) {
  const query = parsed(ListQuerySchema, rawQuery);
  if (query.order === 'asc') throw new ApiError('validation_error', 'Invalid query: order: only desc (newest first).');
  const after = query.after ? await videoTask(adapter, query.after) : undefined;
  const cursor = after ? encodeHistoryCursor({ createdAt: new Date(after.created_at), id: after.id }) : undefined;
  const page = (
    await run(adapter, 'listGenerations', {
      query: { limit: String(query.limit ?? 20), ...(cursor ? { cursor } : {}) },
    })
  ).body as { generations: VideoTask[]; next_cursor: string | null };
  const data = page.generations.filter((task) => videoTypes.has(task.type ?? '')).map(videoOf);
  return {
    object: 'list' as const,
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: page.next_cursor !== null,
  };
}

/** The MP4 of a completed video (`variant` video, the default). */
export async function videoContent(adapter: AdapterExchange, res: Response, id: string, variant: unknown) {
  if (variant !== undefined && variant !== 'video')
    throw new ApiError('validation_error', `Invalid query: variant: only video is kept, not ${String(variant)}.`);
  const task = await videoTask(adapter, id);
  const url = task.outputs?.[0];
  if (task.status !== 'completed' || !url)
    throw new ApiError('not_found', `Video ${id} has no content: it is ${task.status}.`);
  const output = await openOutput(adapter, url);
  res.status(200).type(output.contentType);
  output.body.pipe(res);
}

/** Cancels a video still being made (everything it reserved released); an ended one keeps its data for now. */
export async function deleteVideo(adapter: AdapterExchange, id: string) {
  const task = await videoTask(adapter, id);
  if (hasEnded(task.status))
    throw new ApiError(
      'conflict',
      `Video ${id} has ended (${task.status}); its file is deleted when the outputs' retention ends.`,
      { status: task.status },
    );
  await run(adapter, 'cancelGeneration', { params: { id } });
  return { id, object: 'video.deleted' as const, deleted: true };
}

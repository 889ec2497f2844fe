// POST /openai/v1/chat/completions for the text-to-text models: a generation task (charged by the tokens it used, in
// the history), answered as a chat completion once it ended, or with `stream: true` as server-sent chunks: the whole
// answer in chunks when the task ends (the task runs as every task does, durably), keep-alive comments meanwhile.
import type { Response } from 'express';
import { text } from 'node:stream/consumers';
import { z } from 'zod';
import type { AdapterExchange } from '../adapter-call.ts';
import { ApiError } from '../errors.ts';
import { openAiErrorBody, type ParamNames } from './openai-errors.ts';
import { parsed, taskIdHeader } from './openai-media.ts';
import { createGeneration, endedGeneration, failureOf, type Generation, openOutput } from './task-answers.ts';

const ContentSchema = z.union([
  z.string(),
  z
    .array(z.looseObject({ type: z.literal('text'), text: z.string() }))
    .transform((parts) => parts.map((part) => part.text).join('')),
]);

// The roles a chat model's transcript keeps; `developer` is OpenAI's newer name for `system`.
const MessageSchema = z.looseObject({
  role: z
    .enum(['system', 'developer', 'user', 'assistant'])
    .transform((role) => (role === 'developer' ? 'system' : role)),
  content: ContentSchema,
});

export const ChatBodySchema = z.looseObject({
  model: z.string().min(1).max(200),
  messages: z.array(MessageSchema).min(1),
  max_tokens: z.int().min(1).optional(),
  max_completion_tokens: z.int().min(1).optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  presence_penalty: z.number().optional(),
  frequency_penalty: z.number().optional(),
  seed: z.int().optional(),
  n: z.literal(1).optional(),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
});

export const chatParams: ParamNames = { max_tokens: 'max_tokens', messages: 'messages' };

type ChatBody = z.output<typeof ChatBodySchema>;

function generationBody(body: ChatBody) {
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const optional = {
    max_tokens: maxTokens,
    temperature: body.temperature,
    top_p: body.top_p,
    presence_penalty: body.presence_penalty,
    frequency_penalty: body.frequency_penalty,
    seed: body.seed,
  };
  return {
    type: 'text-to-text',
    model: body.model,
    messages: body.messages,
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
  };
}

/** The task's answer, its text file read from the store. */
async function answerText(adapter: AdapterExchange, generation: Generation): Promise<string> {
  const url = generation.outputs?.[0];
  if (!url) throw new ApiError('internal_error', `Task ${generation.id} completed without an answer.`);
  return text((await openOutput(adapter, url)).body);
}

function usageOf(generation: Generation) {
  const prompt = Number(generation.usage?.input_tokens ?? 0);
  const completion = Number(generation.usage?.output_tokens ?? 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

const createdOf = (generation: Generation) => Math.floor(new Date(generation.created_at).getTime() / 1000);

export async function chatCompletion(adapter: AdapterExchange, res: Response, raw: unknown) {
  const body = parsed(ChatBodySchema, raw);
  const queued = await createGeneration(adapter, generationBody(body));
  res.set(taskIdHeader, queued.id);
  if (body.stream) return streamCompletion(adapter, res, queued.id, body);
  const ended = await endedGeneration(adapter, queued.id);
  if (ended.status !== 'completed') throw failureOf(ended);
  return {
    id: ended.id,
    object: 'chat.completion' as const,
    created: createdOf(ended),
    model: ended.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content: await answerText(adapter, ended), refusal: null },
        finish_reason: 'stop' as const,
        logprobs: null,
      },
    ],
    usage: usageOf(ended),
  };
}

/** The answer as chat.completion.chunk events once the task ended; a failure as an `error` event, as OpenAI sends. */
async function streamCompletion(adapter: AdapterExchange, res: Response, id: string, body: ChatBody) {
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), adapter.ctx.config.events.heartbeatMs);
  try {
    const ended = await endedGeneration(adapter, id);
    if (ended.status !== 'completed') throw failureOf(ended);
    const content = await answerText(adapter, ended);
    const chunk = (delta: object, finish: 'stop' | null) => ({
      id,
      object: 'chat.completion.chunk',
      created: createdOf(ended),
      model: ended.model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
    send(chunk({ role: 'assistant', content: '' }, null));
    send(chunk({ content }, null));
    send(chunk({}, 'stop'));
    if (body.stream_options?.include_usage) send({ ...chunk({}, null), choices: [], usage: usageOf(ended) });
  } catch (error) {
    const refusal = error instanceof ApiError ? error : new ApiError('internal_error', 'An internal error occurred.');
    if (!(error instanceof ApiError)) adapter.log.error({ err: error }, 'chat completion stream failed');
    send(openAiErrorBody(refusal));
  } finally {
    clearInterval(heartbeat);
  }
  res.end('data: [DONE]\n\n');
}

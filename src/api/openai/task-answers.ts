// What the OpenAI-shaped routes wait for and read: a generation created as POST /generations creates it, held until
// it ends (as `Prefer: wait` holds it, again and again up to a bound), and its output files read from the store.
import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import { type AdapterExchange, run } from '../adapter-call.ts';
import { ApiError } from '../errors.ts';
import { maxPreferWaitSeconds } from '../prefer.ts';
import { hasEnded } from '../../domain/values.ts';
import { linkedKey } from '../../storage/storage.ts';

/** How long a call is held for its task, as MCP's waits are: below the load balancers' idle timeouts. */
export const maxAnswerWaitSeconds = 300;

export interface Generation {
  id: string;
  status: string;
  model: string;
  created_at: string;
  error?: string;
  outputs?: string[];
  cost?: number;
  usage?: Record<string, number>;
  progress?: { percent?: number } | null;
}

/** Creates the generation (charged as any other: the key's policies and budget apply) and answers it, queued. */
export async function createGeneration(adapter: AdapterExchange, body: Record<string, unknown>): Promise<Generation> {
  const answer = await run(adapter, 'createGeneration', { body, hasBody: true });
  return answer.body as Generation;
}

/** The generation once it ended, read with the caller's key; a 504-like refusal if it runs past the bound. */
export async function endedGeneration(adapter: AdapterExchange, id: string): Promise<Generation> {
  const deadline = Date.now() + maxAnswerWaitSeconds * 1000;
  for (;;) {
    const left = Math.ceil((deadline - Date.now()) / 1000);
    const wait = Math.max(1, Math.min(maxPreferWaitSeconds, left));
    const answer = await run(adapter, 'getGeneration', { params: { id }, headers: { Prefer: `wait=${wait}` } });
    const generation = answer.body as Generation;
    if (hasEnded(generation.status)) return generation;
    if (Date.now() >= deadline || adapter.exchange.signal.aborted)
      throw new ApiError(
        'service_unavailable',
        `Task ${id} is still running after ${maxAnswerWaitSeconds} s; it goes on: read it with GET /api/v1/generations/${id}.`,
      );
  }
}

/** A completed generation's output file, read from the store (the caller read the task, so it may read its files). */
export async function openOutput(
  adapter: AdapterExchange,
  url: string,
): Promise<{ body: Readable; contentType: string }> {
  const path = new URL(url).pathname;
  const key = path.startsWith('/files/') ? linkedKey(path.slice('/files/'.length)) : null;
  const stored = key ? await adapter.ctx.storage.open(key) : null;
  if (!stored) throw new ApiError('not_found', 'The output file is gone.');
  // A local file has no stored type: its extension names it, as the file server's does.
  return { body: stored.body, contentType: stored.contentType ?? extname(key!) };
}

/** A failed generation as a refusal: the task's error, its id to look it up by (the history keeps it, refunded). */
export const failureOf = (generation: Generation) =>
  new ApiError(
    'internal_error',
    `Task ${generation.id} failed: ${generation.error ?? 'unknown error'}. Nothing was charged.`,
  );

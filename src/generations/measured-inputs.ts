// The media inputs a model's price depends on (catalog `measured_inputs`: per minute of audio, lip-sync) are measured
// before the request is priced, so it pays for the file it sends and not for the `duration` it declares. Each input
// is downloaded behind the input guard, bounded in size and time; a problem names its field (400, nothing charged).
import type { CatalogEntry } from '../catalog/catalog.schema.ts';
import type { FieldProblem } from '../catalog/capabilities.ts';
import { priceRequest } from '../catalog/pricing.ts';
import { ModelRequestError } from '../catalog/resolve.ts';
import type { GenerationRequest } from '../domain/generation-request.ts';
import { InputFetchError } from '../providers/fetch-input.ts';
import { readInput } from '../providers/read-input.ts';
import { MediaLengthError, mediaSeconds } from '../providers/media-length.ts';
import type { Storage } from '../storage/storage.ts';

export interface MeasureOptions {
  maxBytes: number;
  /** Download and measurement of all inputs together. */
  timeoutMs: number;
  allowPrivate: boolean;
  /** Where our own uploads are read from. */
  storage?: Storage;
}

/** The longest input the model takes, in seconds: its per-minute limit, or its longest duration. */
function longestInputSeconds(model: CatalogEntry): number {
  if (model.pricing.kind === 'per_minute_of_input') return model.pricing.max_minutes * 60;
  return Math.max(...(model.capabilities.durations ?? [Infinity]));
}

async function measureOne(url: string, deadlineMs: number, options: MeasureOptions): Promise<number> {
  const timeoutMs = Math.max(deadlineMs - Date.now(), 1);
  const { data } = await readInput(url, { ...options, timeoutMs });
  return mediaSeconds(data, deadlineMs);
}

const problemOf = (field: string, error: unknown): FieldProblem => {
  if (error instanceof InputFetchError)
    return { field, message: `${error.message}; it is needed to price the request` };
  if (error instanceof MediaLengthError) return { field, message: `could not be measured: ${error.message}` };
  throw error;
};

/**
 * Seconds of the longest measured input, rounded up (undefined when the model's price depends on none). Refuses, naming
 * the field, an input that cannot be fetched or read in time or that is longer than the model takes.
 */
export async function measureInputs(
  model: CatalogEntry,
  request: GenerationRequest,
  options: MeasureOptions,
): Promise<number | undefined> {
  const fields = (model.measured_inputs ?? []).filter((field) => request[field]);
  if (fields.length === 0) return undefined;
  const deadlineMs = Date.now() + options.timeoutMs;
  const measured = await Promise.allSettled(fields.map((field) => measureOne(request[field]!, deadlineMs, options)));
  const problems: FieldProblem[] = [];
  const limit = longestInputSeconds(model);
  let longest = 0;
  measured.forEach((result, index) => {
    const field = fields[index]!;
    if (result.status === 'rejected') return problems.push(problemOf(field, result.reason));
    const seconds = Math.ceil(result.value);
    if (seconds > limit)
      problems.push({
        field,
        message: `is ${seconds} seconds long; model ${model.slug} takes at most ${limit} seconds`,
      });
    longest = Math.max(longest, seconds);
  });
  if (problems.length > 0) throw new ModelRequestError(problems);
  return longest;
}

/**
 * At run time, the bytes actually sent upstream: an input that became longer since it was measured (the same URL
 * serving another file) would cost more than was reserved, so it is refused with the reason (the task then fails,
 * nothing charged). Null when it still costs what was paid.
 */
export async function grownSinceAdmission(
  model: CatalogEntry,
  request: GenerationRequest,
  input: { url: string; data: Buffer; inputSeconds: number; deadlineMs: number },
): Promise<string | null> {
  const field = (model.measured_inputs ?? []).find((name) => request[name] === input.url);
  if (!field) return null;
  let seconds: number;
  try {
    seconds = Math.ceil(await mediaSeconds(input.data, input.deadlineMs));
  } catch (error) {
    if (error instanceof MediaLengthError) return `${field} changed after the task was admitted: ${error.message}`;
    throw error;
  }
  const costs = (inputSeconds: number) => priceRequest(model, { ...request, input_seconds: inputSeconds }).micros;
  if (
    seconds <= longestInputSeconds(model) &&
    costs(Math.max(seconds, input.inputSeconds)) <= costs(input.inputSeconds)
  )
    return null;
  return `${field} changed after the task was admitted: it is now ${seconds} seconds long, and ${input.inputSeconds} seconds were paid for`;
}

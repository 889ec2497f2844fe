// Outputs stored once the model has made them. A store that is down for a while (connection refused, 5xx, a
// timeout) is waited for within the call's time, the model not run again; anything else fails the attempt at once.
import type { ProducedFile } from '../src/providers/types.ts';
import type { Storage } from '../src/storage/storage.ts';

const transientCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);
const maxPauseMs = 5_000;

/** An outage of the store rather than a refusal of the write (S3's 5xx, a network failure). */
export function isStoreOutage(error: unknown): boolean {
  const failure = error as { code?: string; name?: string; $metadata?: { httpStatusCode?: number }; cause?: unknown };
  if ((failure.$metadata?.httpStatusCode ?? 0) >= 500) return true;
  if (failure.name === 'TimeoutError' || transientCodes.has(failure.code ?? '')) return true;
  return failure.cause !== undefined && failure.cause !== error && isStoreOutage(failure.cause);
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Stores the files as `<task id>/output-<n>.<ext>` (a retry overwrites them); their links, in order. */
export async function storeOutputs(
  storage: Storage,
  taskId: string,
  files: ProducedFile[],
  signal: AbortSignal,
): Promise<string[]> {
  for (let pauseMs = 500; ; pauseMs = Math.min(pauseMs * 2, maxPauseMs)) {
    try {
      return await Promise.all(
        files.map((file, index) =>
          storage.put(`${taskId}/output-${index}.${file.extension}`, file.data, { contentType: file.contentType }),
        ),
      );
    } catch (error) {
      if (!isStoreOutage(error) || signal.aborted) throw error;
      await pause(pauseMs, signal);
    }
  }
}

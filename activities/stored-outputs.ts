// Outputs stored once the model has made them, from memory or from the call's own directory (large ones). A store
// that is down for a while is waited for within the call's time, the model not run again; anything else fails the
// attempt at once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProducedFile } from '../src/providers/types.ts';
import { StoreUnavailableError } from '../src/storage/object-store.ts';
import type { Storage } from '../src/storage/storage.ts';

const maxPauseMs = 5_000;

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
        files.map((file, index) => {
          const key = `${taskId}/output-${index}.${file.extension}`;
          const metadata = { contentType: file.contentType };
          return file.path === undefined
            ? storage.put(key, file.data, metadata)
            : storage.putFile(key, file.path, metadata);
        }),
      );
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || signal.aborted) throw error;
      await pause(pauseMs, signal);
    }
  }
}

/** A directory of the call's own for its outputs, removed once they are stored (or the call failed). */
export async function withOutputDir<T>(work: (outputDir: string) => Promise<T>): Promise<T> {
  const outputDir = await mkdtemp(join(tmpdir(), 'gateway-outputs-'));
  try {
    return await work(outputDir);
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

// GETs of one URL offered open loop from a worker thread (read-load-worker.ts), after a warm-up: what a row of reads
// measured from a client that does not share the service's event loop.
import { Worker } from 'node:worker_threads';
import type { Measured } from './load.ts';

export interface ReadLoad {
  url: string;
  headers: Record<string, string>;
  /** Requests a second. */
  rate: number;
  warmUpSeconds: number;
  seconds: number;
}

export function offerReads(load: ReadLoad): Promise<Measured> {
  // The worker is TypeScript: it registers tsx for itself, as `npm run bench` did for this thread (hooks registered
  // in one thread do not load another's modules on Node 20).
  const entry = new URL('./read-load-worker.ts', import.meta.url).href;
  const worker = new Worker(
    `import { register } from 'tsx/esm/api'; register(); await import(${JSON.stringify(entry)});`,
    { eval: true, workerData: load },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', (measured: Measured) => {
      resolve(measured);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the read load worker exited (${code}) before answering`)));
  });
}

// The client a careful integrator writes: every task posted with its own Idempotency-Key, the POST retried on
// network errors, 408, 429 and 5xx (on the next API, when there are several) until a 202, then each task polled
// to its end. Every failed request is counted with its time, so a scenario can tell those seen during its fault.
import { sleep } from './processes.ts';

export interface LoadOptions {
  /** Base URLs (`…/api/v1`); attempts go round them. */
  apiUrls: string[];
  apiKey: string;
  count: number;
  /** Idempotency-Key of task i: `${keyPrefix}-${i}`. */
  keyPrefix: string;
  body: (index: number) => unknown;
  /** How long one task may take, from its first POST to its end, before the client gives up on it. */
  giveUpMs: number;
  concurrency?: number;
}

export interface ClientError {
  at: number;
  what: string;
}

export interface LoadReport {
  keys: string[];
  /** Idempotency-Key → task id, for every key that got its 202. */
  admitted: Map<string, string>;
  /** Task id → its final status as the client saw it. */
  ended: Map<string, string>;
  /** Keys whose POST was refused for good (a 4xx other than 408/429) or never admitted in time. */
  refused: Map<string, string>;
  errors: ClientError[];
  /** When the client saw its last task end. */
  lastEndAt: number;
  /** The most tasks admitted and not yet seen ended at once. */
  peakInFlight: number;
}

export interface Load {
  admittedCount(): number;
  inFlight(): number;
  done: Promise<LoadReport>;
}

const retriable = (status: number) => status === 408 || status === 429 || status >= 500;
const requestTimeoutMs = 60_000;
const pollTimeoutMs = 15_000;
const pollIntervalMs = 1_000;

export function startLoad(options: LoadOptions): Load {
  const keys = Array.from({ length: options.count }, (_, index) => `${options.keyPrefix}-${index}`);
  const admitted = new Map<string, string>();
  const ended = new Map<string, string>();
  const refused = new Map<string, string>();
  const errors: ClientError[] = [];
  const headers = {
    'content-type': 'application/json',
    authorization: `Bearer ${options.apiKey}`,
  };
  const fail = (what: string) => errors.push({ at: Date.now(), what });
  let posting = true;
  let lastEndAt = Date.now();
  let attempts = 0;
  let peakInFlight = 0;
  const inFlight = () => admitted.size - ended.size;

  async function post(index: number): Promise<void> {
    const key = keys[index]!;
    const body = JSON.stringify(options.body(index));
    const deadline = Date.now() + options.giveUpMs;
    for (let retry = 0; ; retry++) {
      const url = options.apiUrls[attempts++ % options.apiUrls.length]!;
      try {
        const response = await fetch(`${url}/generations`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': key },
          body,
          signal: AbortSignal.timeout(requestTimeoutMs),
        });
        const answer = (await response.json().catch(() => ({}))) as { id?: string; error?: string };
        if (response.status === 202 || response.status === 200) {
          admitted.set(key, answer.id!);
          peakInFlight = Math.max(peakInFlight, inFlight());
          return;
        }
        fail(`POST ${response.status} ${answer.error ?? ''}`.trim());
        if (!retriable(response.status)) {
          refused.set(key, `${response.status} ${answer.error}`);
          return;
        }
      } catch (error) {
        fail(`POST ${(error as Error).cause ? ((error as Error).cause as Error).message : (error as Error).name}`);
      }
      if (Date.now() > deadline) {
        refused.set(key, 'not admitted before the client gave up');
        return;
      }
      await sleep(Math.min(250 * 2 ** retry, 2_000));
    }
  }

  async function poll(taskId: string, apiUrl: string): Promise<void> {
    try {
      const response = await fetch(`${apiUrl}/generations/${taskId}`, {
        headers,
        signal: AbortSignal.timeout(pollTimeoutMs),
      });
      if (response.status !== 200) {
        fail(`GET ${response.status}`);
        await response.arrayBuffer();
        return;
      }
      const { status } = (await response.json()) as { status: string };
      if (status === 'completed' || status === 'failed') {
        ended.set(taskId, status);
        lastEndAt = Date.now();
      }
    } catch (error) {
      fail(`GET ${(error as Error).cause ? ((error as Error).cause as Error).message : (error as Error).name}`);
    }
  }

  async function pollUntilAllEnded(giveUpAt: () => number): Promise<void> {
    for (let round = 0; ; round++) {
      const pending = [...admitted.values()].filter((id) => !ended.has(id));
      if (!posting && pending.length === 0) return;
      if (Date.now() > giveUpAt()) return;
      const started = Date.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < pending.length) {
            const i = next++;
            await poll(pending[i]!, options.apiUrls[(round + i) % options.apiUrls.length]!);
          }
        }),
      );
      await sleep(Math.max(0, pollIntervalMs - (Date.now() - started)));
    }
  }

  let lastPostAt = Date.now();
  const posts = (async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: options.concurrency ?? 16 }, async () => {
        while (next < keys.length) await post(next++);
      }),
    );
    posting = false;
    lastPostAt = Date.now();
  })();
  const done = (async () => {
    await Promise.all([posts, pollUntilAllEnded(() => (posting ? Infinity : lastPostAt + options.giveUpMs))]);
    return { keys, admitted, ended, refused, errors, lastEndAt, peakInFlight };
  })();
  return {
    admittedCount: () => admitted.size,
    inFlight,
    done,
  };
}

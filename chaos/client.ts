// The client a careful integrator writes: every task posted with its own Idempotency-Key, the POST retried on
// network errors, 408, 429 and 5xx (on the next API, when there are several) until a 202, then each task polled
// to its end. Every failed request is counted with its time, so a scenario can tell those seen during its fault.
import { sleep } from '../src/infra/processes/supervised-process.ts';

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

/** The client's running state: the report as it fills, and what the pollers need to know. */
interface LoadState extends Omit<LoadReport, 'keys'> {
  options: LoadOptions;
  headers: Record<string, string>;
  posting: boolean;
  lastPostAt: number;
  attempts: number;
}

const inFlightOf = (state: LoadState) => state.admitted.size - state.ended.size;
const fail = (state: LoadState, what: string) => state.errors.push({ at: Date.now(), what });
const reasonOf = (error: unknown) =>
  (error as Error).cause ? ((error as Error).cause as Error).message : (error as Error).name;

/** Posts task `index` under its key, retrying on the next API until a 202, a refusal, or the give-up time. */
async function post(state: LoadState, key: string, body: string): Promise<void> {
  const deadline = Date.now() + state.options.giveUpMs;
  for (let retry = 0; ; retry++) {
    const url = state.options.apiUrls[state.attempts++ % state.options.apiUrls.length]!;
    try {
      const response = await fetch(`${url}/generations`, {
        method: 'POST',
        headers: { ...state.headers, 'idempotency-key': key },
        body,
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      const answer = (await response.json().catch(() => ({}))) as { id?: string; error?: string };
      if (response.status === 202 || response.status === 200) {
        state.admitted.set(key, answer.id!);
        state.peakInFlight = Math.max(state.peakInFlight, inFlightOf(state));
        return;
      }
      fail(state, `POST ${response.status} ${answer.error ?? ''}`.trim());
      if (!retriable(response.status)) {
        state.refused.set(key, `${response.status} ${answer.error}`);
        return;
      }
    } catch (error) {
      fail(state, `POST ${reasonOf(error)}`);
    }
    if (Date.now() > deadline) {
      state.refused.set(key, 'not admitted before the client gave up');
      return;
    }
    await sleep(Math.min(250 * 2 ** retry, 2_000));
  }
}

async function poll(state: LoadState, taskId: string, apiUrl: string): Promise<void> {
  try {
    const response = await fetch(`${apiUrl}/generations/${taskId}`, {
      headers: state.headers,
      signal: AbortSignal.timeout(pollTimeoutMs),
    });
    if (response.status !== 200) {
      fail(state, `GET ${response.status}`);
      await response.arrayBuffer();
      return;
    }
    const { status } = (await response.json()) as { status: string };
    if (status === 'completed' || status === 'failed') {
      state.ended.set(taskId, status);
      state.lastEndAt = Date.now();
    }
  } catch (error) {
    fail(state, `GET ${reasonOf(error)}`);
  }
}

/** Polls every admitted task until all have ended and posting is over, or the client gives up. */
async function pollUntilAllEnded(state: LoadState): Promise<void> {
  const giveUpAt = () => (state.posting ? Infinity : state.lastPostAt + state.options.giveUpMs);
  const { apiUrls } = state.options;
  for (let round = 0; ; round++) {
    const pending = [...state.admitted.values()].filter((id) => !state.ended.has(id));
    if (!state.posting && pending.length === 0) return;
    if (Date.now() > giveUpAt()) return;
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < pending.length) {
          const i = next++;
          await poll(state, pending[i]!, apiUrls[(round + i) % apiUrls.length]!);
        }
      }),
    );
    await sleep(Math.max(0, pollIntervalMs - (Date.now() - started)));
  }
}

export function startLoad(options: LoadOptions): Load {
  const keys = Array.from({ length: options.count }, (_, index) => `${options.keyPrefix}-${index}`);
  const state: LoadState = {
    options,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
    admitted: new Map(),
    ended: new Map(),
    refused: new Map(),
    errors: [],
    posting: true,
    lastEndAt: Date.now(),
    lastPostAt: Date.now(),
    attempts: 0,
    peakInFlight: 0,
  };
  const posts = (async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: options.concurrency ?? 16 }, async () => {
        while (next < keys.length) {
          const index = next++;
          await post(state, keys[index]!, JSON.stringify(options.body(index)));
        }
      }),
    );
    state.posting = false;
    state.lastPostAt = Date.now();
  })();
  const done = (async () => {
    await Promise.all([posts, pollUntilAllEnded(state)]);
    const { admitted, ended, refused, errors, lastEndAt, peakInFlight } = state;
    return { keys, admitted, ended, refused, errors, lastEndAt, peakInFlight };
  })();
  return { admittedCount: () => state.admitted.size, inFlight: () => inFlightOf(state), done };
}

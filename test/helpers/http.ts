// Speaking to a running API the way a client does: one request helper, and the few multi-step calls tests share
// (register an agent, post a generation, poll it until it ends).
import type { TestApp } from './app.ts';

/** Anything with the API listening: `useAppWithDatabase()`, `useGateway()`, or `{ app }`. */
export interface Server {
  readonly app: Pick<TestApp, 'url'>;
}

export interface ApiResponse<Body = any> {
  status: number;
  headers: Headers;
  body: Body;
}

export interface RequestOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** The client address (X-Forwarded-For); by default a fresh one per request. */
  from?: string;
  headers?: Record<string, string>;
}

let addresses = 0;
/**
 * An address no other request of this process has used (198.18.0.0/15, set aside for tests), so per-address
 * guardrails never mix between tests. It counts only where TRUST_PROXY trusts the loopback proxy.
 */
export function freshClientAddress(): string {
  addresses += 1;
  return `198.18.${(addresses >> 8) & 255}.${addresses & 255}`;
}

/**
 * A path as the spec writes it, relative to {base_url} (`/api/v1`); a path the API handed out (a `poll_url`),
 * which starts with `/api/`, is taken as it is.
 */
const urlOf = (server: Server, path: string) =>
  `${server.app.url}${path.startsWith('/api/') ? path : `/api/v1${path}`}`;

export async function call(
  server: Server,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { 'x-forwarded-for': options.from ?? freshClientAddress() };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const response = await fetch(urlOf(server, path), {
    method,
    headers: { ...headers, ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

export interface RegisteredAgent {
  agent_id: string;
  api_key: string;
  webhook_secret: string | null;
  deposit_addresses: Record<string, string>;
  trial_credit_applied: boolean;
}

/** POST /agents/register; throws unless it answers 201. */
export async function registerAgent(
  server: Server,
  options: { body?: Record<string, unknown>; from?: string } = {},
): Promise<RegisteredAgent> {
  const { status, body } = await call(server, 'POST', '/agents/register', {
    body: { agent_name: 'test agent', ...options.body },
    from: options.from,
  });
  if (status !== 201) throw new Error(`POST /agents/register answered ${status}: ${JSON.stringify(body)}`);
  return body;
}

export interface GenerationOptions {
  key: string;
  body: object;
  headers?: Record<string, string>;
}

/** POST /generations, without waiting for the task. */
export function postGeneration(server: Server, { key, body, headers }: GenerationOptions): Promise<ApiResponse> {
  return call(server, 'POST', '/generations', { key, body, headers });
}

/** Posts a generation and returns its id without waiting for it; throws unless it answers 202. */
export async function startGeneration(server: Server, options: GenerationOptions): Promise<string> {
  const created = await postGeneration(server, options);
  if (created.status !== 202)
    throw new Error(`POST /generations answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/** Polls a task (its `poll_url`) as the key's owner until it is completed or failed, and returns it. */
export async function waitForEnd(
  server: Server,
  { key, pollUrl, timeoutMs = 30_000 }: { key: string; pollUrl: string; timeoutMs?: number },
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body: task } = await call(server, 'GET', pollUrl, { key });
    if (task.status === 'completed' || task.status === 'failed') return task;
    if (Date.now() > deadline) throw new Error(`still ${task.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Posts a generation as the key's owner and polls it until it ends. */
export async function generateAndWait(
  server: Server,
  { timeoutMs, ...options }: GenerationOptions & { timeoutMs?: number },
): Promise<any> {
  const created = await postGeneration(server, options);
  if (created.status !== 202)
    throw new Error(`POST /generations answered ${created.status}: ${JSON.stringify(created.body)}`);
  return waitForEnd(server, { key: options.key, pollUrl: created.body.poll_url, timeoutMs });
}

// For the suites of upstreams that call back (fal, Replicate): callbacks switched on for a describe block, with
// polls an hour apart so that only a callback can finish a task within the test.
import { afterAll, beforeAll } from 'vitest';
import type { Gateway } from './gateway.ts';

export function useUpstreamCallbacks(gateway: Gateway): void {
  let pollInterval: number;
  beforeAll(() => {
    pollInterval = gateway.config.PROVIDER_POLL_INTERVAL_MS;
    gateway.config.PROVIDER_POLL_INTERVAL_MS = 3_600_000;
    gateway.config.UPSTREAM_CALLBACK_BASE_URL = gateway.app.url;
  });
  afterAll(() => {
    gateway.config.PROVIDER_POLL_INTERVAL_MS = pollInterval;
    gateway.config.UPSTREAM_CALLBACK_BASE_URL = undefined;
  });
}

/** How many upstream callbacks reached the task's workflow (as signals in its history). */
export async function callbackSignals(gateway: Gateway, taskId: string): Promise<number> {
  const history = await gateway.env.client.workflow.getHandle(taskId).fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'upstreamCallback').length;
}

/** POSTs a callback as an upstream would. */
export function postCallback(gateway: Gateway, provider: string, taskId: string, headers: Record<string, string>, body: string): Promise<Response> {
  return fetch(`${gateway.app.url}/callbacks/${provider}/${taskId}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

/** Posts a generation and returns its id without waiting for it. */
export async function startGeneration(gateway: Gateway, key: string, body: object): Promise<string> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const response = await fetch(`${gateway.app.url}/api/v1/generations`, { method: 'POST', headers, body: JSON.stringify(body) });
  return ((await response.json()) as { id: string }).id;
}

/** Cancels a running task through Temporal and waits until it has ended failed. */
export async function cancelTask(gateway: Gateway, taskId: string): Promise<void> {
  await gateway.env.client.workflow.getHandle(taskId).cancel();
  const deadline = Date.now() + 15_000;
  while ((await gateway.database.prisma.task.findUniqueOrThrow({ where: { id: taskId } })).status !== 'failed') {
    if (Date.now() > deadline) throw new Error(`task ${taskId} did not end after its cancellation`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// For the suites of upstreams that call back (fal, Replicate): callbacks switched on for a describe block, with
// polls an hour apart so that only a callback can finish a task within the test.
import { afterAll, beforeAll } from 'vitest';
import type { Gateway } from './gateway.ts';

export function useUpstreamCallbacks(gateway: Gateway): void {
  let pollInterval: number;
  beforeAll(() => {
    pollInterval = gateway.config.providers.pollIntervalMs;
    gateway.config.providers.pollIntervalMs = 3_600_000;
    gateway.config.providers.callbackBaseUrl = gateway.app.url;
  });
  afterAll(() => {
    gateway.config.providers.pollIntervalMs = pollInterval;
    gateway.config.providers.callbackBaseUrl = undefined;
  });
}

/** How many upstream callbacks reached the task's workflow (as signals in its history). */
export async function callbackSignals(gateway: Gateway, taskId: string): Promise<number> {
  const history = await gateway.env.client.workflow.getHandle(taskId).fetchHistory();
  return (history.events ?? []).filter(
    (event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'upstreamCallback',
  ).length;
}

/** POSTs a callback as an upstream would. */
export function postCallback(
  gateway: Gateway,
  {
    provider,
    taskId,
    headers,
    body,
  }: { provider: string; taskId: string; headers: Record<string, string>; body: string },
): Promise<Response> {
  return fetch(`${gateway.app.url}/callbacks/${provider}/${taskId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

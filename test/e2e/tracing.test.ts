// Tracing through the real stack: with OTEL_EXPORTER_OTLP_ENDPOINT set, one generation's spans, from its HTTP
// request through its workflow to its activities and its webhook's delivery, reach an OTLP receiver as one trace.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../stand-ins/otlp-receiver.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { generateAndWait } from '../helpers/http.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { type Receiver, startReceiver } from '../../harness/webhook-receiver.ts';

let collector: OtlpReceiver;
let webhooks: Receiver;
const gateway = useGateway(async () => {
  collector = await startOtlpReceiver();
  return { tracing: { otlpEndpoint: collector.url } };
});
const developer = useFundedDeveloper(gateway);
const inputs = usePngInputServer();
beforeAll(async () => {
  webhooks = await startReceiver();
});
afterAll(async () => {
  await collector?.close();
  await webhooks?.close();
});

// The caller's own trace (W3C traceparent), which the request joins.
const callerTraceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const callerSpanId = '00f067aa0ba902b7';

const activity = (name: string) => [`StartActivity:${name}`, `RunActivity:${name}`];
const expectedSpans = [
  'POST /api/v1/generations',
  'UpdateWithStartWorkflow:admit',
  'HandleUpdate:admit',
  ...activity('admitTask'),
  'RunWorkflow:generationWorkflow',
  ...activity('generateOutputs'),
  ...activity('settleTask'),
  ...activity('sendWebhook'),
  ...activity('recordWebhookAttempt'),
].sort();

it('one generation: its HTTP request, workflow, activities and webhook delivery in the trace of the caller', async () => {
  const task = await generateAndWait(gateway, {
    key: developer.key,
    headers: { traceparent: `00-${callerTraceId}-${callerSpanId}-01` },
    body: {
      type: 'upscale',
      model: 'local/lanczos',
      image_url: `${inputs.url()}/input.png`,
      resolution: '4x',
      webhook_url: `${webhooks.url}/task`,
    },
  });
  expect(task.status).toBe('completed');

  const trace = () => collector.spans.filter((span) => span.traceId === callerTraceId);
  // Workflow spans are exported when their workflow ends; the webhook's first attempt is its last step.
  await expect
    .poll(
      async () => {
        await gateway.tracing!.flush();
        return trace()
          .map((span) => span.name)
          .sort();
      },
      { timeout: 15_000, interval: 200 },
    )
    .toEqual(expectedSpans);

  const spans = new Map(trace().map((span) => [span.name, span]));
  const span = (name: string): ReceivedSpan => spans.get(name)!;
  const parentOf = (name: string) => trace().find((candidate) => candidate.spanId === span(name).parentSpanId)?.name;
  expect(new Set(trace().map((each) => each.service))).toEqual(new Set(['generation-gateway']));
  expect(span('POST /api/v1/generations')).toMatchObject({
    parentSpanId: callerSpanId,
    kind: 2,
    attributes: {
      'http.request.method': 'POST',
      'http.route': '/api/v1/generations',
      'url.path': '/api/v1/generations',
      'http.response.status_code': 202,
    },
  });
  // The chain: request → update-with-start → the workflow and its admission → each step's activity → the delivery.
  expect(parentOf('UpdateWithStartWorkflow:admit')).toBe('POST /api/v1/generations');
  expect(parentOf('HandleUpdate:admit')).toBe('UpdateWithStartWorkflow:admit');
  expect(parentOf('StartActivity:admitTask')).toBe('HandleUpdate:admit');
  expect(parentOf('RunActivity:admitTask')).toBe('StartActivity:admitTask');
  expect(parentOf('RunWorkflow:generationWorkflow')).toBe('UpdateWithStartWorkflow:admit');
  for (const step of ['generateOutputs', 'settleTask']) {
    expect(parentOf(`StartActivity:${step}`)).toBe('RunWorkflow:generationWorkflow');
    expect(parentOf(`RunActivity:${step}`)).toBe(`StartActivity:${step}`);
  }
  // The completed event's first attempt is a step of the task's own workflow.
  for (const step of ['sendWebhook', 'recordWebhookAttempt']) {
    expect(parentOf(`StartActivity:${step}`)).toBe('RunWorkflow:generationWorkflow');
    expect(parentOf(`RunActivity:${step}`)).toBe(`StartActivity:${step}`);
  }
  // The task is found from its spans.
  expect(span('RunWorkflow:generationWorkflow').attributes.workflowId).toBe(task.id);
  expect(span('RunActivity:generateOutputs').attributes.temporalWorkflowId).toBe(task.id);
});

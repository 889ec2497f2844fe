// The HTTP request's span is mounted only when OTEL_EXPORTER_OTLP_ENDPOINT is set: with a tracer registered in the
// process, an app without it makes no span; one with it makes a server span per request, named by its route.
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp, useAppWithDatabase } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';

const untraced = useAppWithDatabase();
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let traced: TestApp;

beforeAll(async () => {
  provider.register();
  traced = await startTestApp({
    database: untraced.database,
    config: { tracing: { otlpEndpoint: 'http://127.0.0.1:9' } },
  });
});
afterAll(async () => {
  await traced?.close();
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

const spans = () =>
  exporter.getFinishedSpans().map((span) => ({ name: span.name, kind: span.kind, attributes: span.attributes }));

it('no span without OTEL_EXPORTER_OTLP_ENDPOINT; with it, a server span per request named by its route', async () => {
  expect((await fetch(`${untraced.app.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${traced.url}/healthz`)).status).toBe(200);
  // The span ends when the response is done, just after the client has it.
  await expect.poll(() => spans().length).toBe(1);
  // A path no route takes keeps the method as its name.
  expect((await call({ app: traced }, 'GET', '/nothing-here')).status).toBe(404);
  await expect.poll(() => spans().length).toBe(2);
  expect(spans()).toEqual([
    {
      name: 'GET /healthz',
      kind: 1,
      attributes: {
        'http.request.method': 'GET',
        'url.path': '/healthz',
        'http.route': '/healthz',
        'http.response.status_code': 200,
      },
    },
    {
      name: 'GET',
      kind: 1,
      attributes: {
        'http.request.method': 'GET',
        'url.path': '/api/v1/nothing-here',
        'http.response.status_code': 404,
      },
    },
  ]);
});

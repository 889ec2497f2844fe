// The tracing switch: OTEL_EXPORTER_OTLP_ENDPOINT unset starts and registers nothing; set, a tracer is registered
// until a shutdown that a collector which never answers cannot hold up.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTracing, tracingServiceName } from '../../src/infra/tracing.ts';
import {
  tracingClientInterceptors,
  tracingWorkerOptions,
  tracingWorkflowInterceptorModules,
} from '../../src/temporal/tracing.ts';

const recording = () => trace.getTracer('test').startSpan('probe').isRecording();

describe('tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset)', () => {
  it('starts no SDK, registers no tracer, and gives Temporal no interceptors, sinks or bundle modules', () => {
    const tracing = startTracing(loadConfig({}, []));
    expect(tracing).toBeUndefined();
    expect(recording()).toBe(false);
    expect(tracingClientInterceptors(tracing)).toBeUndefined();
    expect(tracingWorkerOptions(tracing)).toEqual({});
    expect(tracingWorkflowInterceptorModules(tracing)).toEqual([]);
  });
});

describe('tracing on', () => {
  // A collector that takes the request and never answers.
  let silent: Server;
  let endpoint: string;
  beforeAll(async () => {
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('registers the tracer, hands Temporal its interceptors, and shuts down within its 2 s wait on a silent collector', async () => {
    const tracing = startTracing(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }, []))!;
    expect(tracing.serviceName).toBe('generation-gateway');
    expect(recording()).toBe(true);
    expect(tracingClientInterceptors(tracing)?.workflow).toHaveLength(1);
    expect(Object.keys(tracingWorkerOptions(tracing).sinks!)).toEqual(['exporter']);
    expect(tracingWorkflowInterceptorModules(tracing)).toEqual([
      expect.stringMatching(/@temporalio\/interceptors-opentelemetry\/lib\/workflow-interceptors\.js$/),
    ]);

    trace.getTracer('test').startSpan('pending export').end();
    const started = Date.now();
    await tracing.shutdown();
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(recording()).toBe(false);
  });
});

it("names the service by OTEL_SERVICE_NAME, else by the gateway's role", () => {
  expect(tracingServiceName(loadConfig({ GATEWAY_ROLE: 'all' }, []))).toBe('generation-gateway');
  expect(tracingServiceName({ GATEWAY_ROLE: 'api', OTEL_SERVICE_NAME: undefined })).toBe('generation-gateway-api');
  expect(tracingServiceName({ GATEWAY_ROLE: 'worker', OTEL_SERVICE_NAME: undefined })).toBe(
    'generation-gateway-worker',
  );
  expect(tracingServiceName({ GATEWAY_ROLE: 'worker', OTEL_SERVICE_NAME: 'render-farm' })).toBe('render-farm');
});

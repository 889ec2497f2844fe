// The tracing switch: OTEL_EXPORTER_OTLP_ENDPOINT unset starts and registers nothing; set, a tracer is registered
// until a shutdown that a collector which never answers cannot hold up.
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { startTracing, tracingServiceName } from '../../src/infra/tracing.ts';
import { temporalTracing } from '../../src/use-cases/temporal/tracing.ts';
import { closeServer, listenLocally } from '../../harness/local-server.ts';

const recording = () => trace.getTracer('test').startSpan('probe').isRecording();
// The SDK's packages are CommonJS: once imported, they are in the require cache.
const loaded = (name: string) =>
  Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes(`/node_modules/${name}/`));

describe('tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset)', () => {
  it('loads and starts no SDK, registers no tracer, and gives Temporal no interceptors', async () => {
    const config = loadConfig({}, []);
    const tracing = await startTracing(config.tracing, config.server.role);
    expect(tracing).toBeUndefined();
    expect(await temporalTracing(tracing)).toBeUndefined();
    expect(recording()).toBe(false);
    expect(loaded('@opentelemetry/sdk-trace-node')).toBe(false);
    expect(loaded('@opentelemetry/exporter-trace-otlp-http')).toBe(false);
    expect(loaded('@temporalio/interceptors-opentelemetry')).toBe(false);
  });
});

describe('tracing on', () => {
  // A collector that takes the request and never answers.
  let silent: Server;
  let endpoint: string;
  beforeAll(async () => {
    silent = createServer(() => undefined);
    endpoint = (await listenLocally(silent)).url;
  });
  afterAll(() => closeServer(silent));

  it('registers the tracer, hands Temporal its interceptors, and shuts down within its 2 s wait on a silent collector', async () => {
    const config = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }, []);
    const tracing = (await startTracing(config.tracing, config.server.role))!;
    expect(tracing.serviceName).toBe('generation-gateway');
    expect(recording()).toBe(true);
    expect(loaded('@opentelemetry/sdk-trace-node')).toBe(true);
    const temporal = (await temporalTracing(tracing))!;
    expect(temporal.clientInterceptors.workflow).toHaveLength(1);
    expect(temporal.workerOptions.interceptors?.activity).toHaveLength(1);
    expect(Object.keys(temporal.workerOptions.sinks!)).toEqual(['exporter']);
    expect(temporal.workflowInterceptorModules).toEqual([
      expect.stringMatching(/@temporalio\/interceptors-opentelemetry\/lib\/workflow-interceptors\.js$/),
    ]);

    trace.getTracer('test').startSpan('pending export').end();
    const started = Date.now();
    await tracing.shutdown();
    // Under the exporter's own 5 s timeout: the 2 s wait cut it short.
    expect(Date.now() - started).toBeLessThan(4_500);
    expect(recording()).toBe(false);
  });
});

it("names the service by OTEL_SERVICE_NAME, else by the gateway's role", () => {
  const config = loadConfig({ GATEWAY_ROLE: 'all' }, []);
  expect(tracingServiceName(config.tracing, config.server.role)).toBe('generation-gateway');
  expect(tracingServiceName({ serviceName: undefined }, 'api')).toBe('generation-gateway-api');
  expect(tracingServiceName({ serviceName: undefined }, 'worker')).toBe('generation-gateway-worker');
  expect(tracingServiceName({ serviceName: 'render-farm' }, 'worker')).toBe('render-farm');
});

// OpenTelemetry tracing, on exactly when OTEL_EXPORTER_OTLP_ENDPOINT is set: a tracer provider that sends spans as
// OTLP/HTTP (JSON) to <endpoint>/v1/traces. Off, nothing is started or registered, and the SDK is not even loaded
// (about 5 MB of heap and half a second). The SDK is the 1.x line, as @temporalio/interceptors-opentelemetry builds
// its workflow spans with it.
import { context, propagation, trace } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Role, TracingConfig } from '../config/config.ts';

export interface Tracing {
  serviceName: string;
  /** The spans' resource and processor, for the workflow spans the worker's sink hands over from the sandbox. */
  resource: Resource;
  spanProcessor: SpanProcessor;
  /** Sends the spans ended so far. */
  flush(): Promise<void>;
  /** Sends what is left (waiting at most `shutdownWaitMs`) and unregisters the global tracer. */
  shutdown(): Promise<void>;
}

// A collector that does not answer must not hold up Ctrl-C: what it has not taken by then is dropped.
const exportTimeoutMs = 5_000;
const shutdownWaitMs = 2_000;

/** OTEL_SERVICE_NAME, or the gateway's name with its role (one name when a process runs both). */
export function tracingServiceName(tracing: Pick<TracingConfig, 'serviceName'>, role: Role): string {
  if (tracing.serviceName) return tracing.serviceName;
  return role === 'all' ? 'generation-gateway' : `generation-gateway-${role}`;
}

/** Starts and registers the global tracer provider when OTEL_EXPORTER_OTLP_ENDPOINT is set; else undefined. */
export async function startTracing(tracing: TracingConfig, role: Role): Promise<Tracing | undefined> {
  const endpoint = tracing.otlpEndpoint;
  if (!endpoint) return undefined;
  const [{ OTLPTraceExporter }, { Resource }, { BatchSpanProcessor, NodeTracerProvider }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
  ]);
  const serviceName = tracingServiceName(tracing, role);
  // The SDK's own attributes (telemetry.sdk.*) with the service's name.
  const resource = Resource.default().merge(new Resource({ [ATTR_SERVICE_NAME]: serviceName }));
  // The base endpoint gets the signal's path, as the OTLP exporter specification says for this variable.
  const exporter = new OTLPTraceExporter({
    url: `${endpoint.replace(/\/+$/, '')}/v1/traces`,
    timeoutMillis: exportTimeoutMs,
  });
  const spanProcessor = new BatchSpanProcessor(exporter);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Global tracer, AsyncLocalStorage context (a request's span follows its awaits) and W3C trace-context headers.
  provider.register();
  return {
    serviceName,
    resource,
    spanProcessor,
    flush: () => provider.forceFlush(),
    async shutdown() {
      await Promise.race([
        provider.shutdown().catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, shutdownWaitMs).unref()),
      ]);
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

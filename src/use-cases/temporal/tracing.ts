// Temporal's OpenTelemetry interceptors, when tracing is on: the api's client puts the trace context in the headers
// of what it starts, the workflow continues it (its spans reach the exporter through a sink) and hands it on to its
// activities. Tracing off, none of them is registered and their package is not loaded.
import { createRequire } from 'node:module';
import type { ClientInterceptors } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';
import type { Tracing } from '../../infra/tracing.ts';

export interface TemporalTracing {
  /** The api's client: the span of each start (or update-with-start), and the context in its headers. */
  clientInterceptors: ClientInterceptors;
  /** Every worker's: activity interceptors, the client activities use, and the sink for the workflows' spans. */
  workerOptions: Pick<WorkerOptions, 'interceptors' | 'sinks'>;
  /** For the workflow bundle: workflow code only runs the interceptors bundled with it. */
  workflowInterceptorModules: string[];
}

/** The interceptors for `tracing`; undefined when tracing is off. */
export async function temporalTracing(tracing: Tracing | undefined): Promise<TemporalTracing | undefined> {
  if (!tracing) return undefined;
  const {
    makeWorkflowExporter,
    OpenTelemetryActivityInboundInterceptor,
    OpenTelemetryActivityOutboundInterceptor,
    OpenTelemetryWorkflowClientInterceptor,
  } = await import('@temporalio/interceptors-opentelemetry');
  return {
    clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    workerOptions: {
      interceptors: {
        // The client activities use (the webhook deliveries they start) carries the trace on too.
        client: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
      sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
    },
    workflowInterceptorModules: [
      createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
    ],
  };
}

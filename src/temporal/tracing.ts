// Temporal's OpenTelemetry interceptors, when tracing is on: the api's client puts the trace context in the headers
// of what it starts, the workflow continues it (its spans reach the exporter through a sink) and hands it on to its
// activities. Tracing off, none of them is registered.
import { createRequire } from 'node:module';
import type { ClientInterceptors } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import type { Tracing } from '../infra/tracing.ts';

/** The workflow interceptors' module, for the bundle: workflow code only runs what was bundled with it. */
export const tracingWorkflowInterceptorModules = (tracing: Tracing | undefined): string[] =>
  tracing
    ? [createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')]
    : [];

/** The api's Temporal client interceptors: the span of each start (or update-with-start) and its headers. */
export function tracingClientInterceptors(tracing: Tracing | undefined): ClientInterceptors | undefined {
  return tracing ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}

/** A worker's interceptors (activities, and the client they use) and the sink that exports workflows' spans. */
export function tracingWorkerOptions(tracing: Tracing | undefined): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (!tracing) return {};
  return {
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
  };
}

// An OTLP/HTTP trace receiver (a collector's or Jaeger's), for tracing tests: keeps the spans posted as JSON to
// /v1/traces, flattened, with the service name of their resource.
import { createServer, type Server } from 'node:http';
import { listenLocally } from '../../harness/local-server.ts';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a trace's root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportTraceServiceRequest {
  resourceSpans: {
    resource: { attributes: KeyValue[] };
    scopeSpans: {
      spans: (Omit<ReceivedSpan, 'service' | 'attributes' | 'parentSpanId'> & {
        parentSpanId?: string;
        attributes: KeyValue[];
      })[];
    }[];
  }[];
}

const valueOf = (value: AnyValue) => value.stringValue ?? value.intValue ?? value.boolValue;
const attributesOf = (list: KeyValue[]) => Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || req.headers['content-type'] !== 'application/json') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportTraceServiceRequest;
      for (const { resource, scopeSpans } of body.resourceSpans) {
        const service = String(attributesOf(resource.attributes)['service.name']);
        for (const { spans: posted } of scopeSpans)
          for (const span of posted)
            spans.push({
              service,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const { url } = await listenLocally(server);
  return {
    url,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

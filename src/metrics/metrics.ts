// Every Prometheus series of the gateway, in one registry per process: the api's and the worker's activities' both
// land here when they share a process. Events are counted where they are certain: after the commit that made them.
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const secondsBuckets = {
  http: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  provider: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  task: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
};

export const metrics = {
  httpRequests: new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  }),
  httpDuration: new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: secondsBuckets.http,
    registers: [registry],
  }),
  httpErrors: new Counter({
    name: 'gateway_http_errors_total',
    help: 'Error answers by route pattern and error code (insufficient_balance and payment_required are the 402s, rate_limited and registration_capped the 429s)',
    labelNames: ['method', 'route', 'code'] as const,
    registers: [registry],
  }),
  admissions: new Counter({
    name: 'gateway_admissions_total',
    help: 'Answers to POST /generations: admitted (202, or 201 after a Prefer: wait), or the error code of the refusal',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  tasksEnded: new Counter({
    name: 'gateway_tasks_ended_total',
    help: 'Generation tasks that ended, by model, provider and status (completed or failed)',
    labelNames: ['model', 'provider', 'status'] as const,
    registers: [registry],
  }),
  taskDuration: new Histogram({
    name: 'gateway_task_duration_seconds',
    help: 'End-to-end time of a task, from admission to its end, by model, provider and status',
    labelNames: ['model', 'provider', 'status'] as const,
    buckets: secondsBuckets.task,
    registers: [registry],
  }),
  providerCalls: new Counter({
    name: 'gateway_provider_calls_total',
    help: 'Calls to providers, by provider, operation and outcome (ok, refused, account, retry_later, error)',
    labelNames: ['provider', 'operation', 'outcome'] as const,
    registers: [registry],
  }),
  providerDuration: new Histogram({
    name: 'gateway_provider_call_duration_seconds',
    help: 'Time of one call to a provider, by provider, operation and outcome',
    labelNames: ['provider', 'operation', 'outcome'] as const,
    buckets: secondsBuckets.provider,
    registers: [registry],
  }),
  providerFallbacks: new Counter({
    name: 'gateway_provider_fallbacks_total',
    help: "Tasks switched to a model's next provider route after one failed for a reason not the caller's, by model, failed provider (from) and next (to)",
    labelNames: ['model', 'from', 'to'] as const,
    registers: [registry],
  }),
  providerOperatorFailures: new Counter({
    name: 'gateway_provider_operator_failures_total',
    help: "Upstream 401/402/403: the gateway's own provider key is wrong or out of credit (the operator's to fix)",
    labelNames: ['provider', 'status'] as const,
    registers: [registry],
  }),
  webhookAttempts: new Counter({
    name: 'gateway_webhook_attempts_total',
    help: 'Webhook delivery attempts, by event and outcome (delivered, gone, retrying, failed)',
    labelNames: ['event', 'outcome'] as const,
    registers: [registry],
  }),
  webhookDeliveries: new Counter({
    name: 'gateway_webhook_deliveries_total',
    help: 'Webhook deliveries that ended, by event and outcome (delivered, gone, failed: gave up)',
    labelNames: ['event', 'outcome'] as const,
    registers: [registry],
  }),
  depositsCredited: new Counter({
    name: 'gateway_deposits_credited_total',
    help: 'USDC deposits credited to agents, by chain',
    labelNames: ['chain'] as const,
    registers: [registry],
  }),
  depositsCreditedMicros: new Counter({
    name: 'gateway_deposits_credited_micro_usd_total',
    help: 'Micro-USD credited by USDC deposits, by chain',
    labelNames: ['chain'] as const,
    registers: [registry],
  }),
  moneyCharged: new Counter({
    name: 'gateway_money_charged_micro_usd_total',
    help: 'Micro-USD charged for completed tasks, by model and provider',
    labelNames: ['model', 'provider'] as const,
    registers: [registry],
  }),
  moneyReleased: new Counter({
    name: 'gateway_money_released_micro_usd_total',
    help: 'Micro-USD of reservations released (the unused rest of a completed task, all of a failed one), by model and provider',
    labelNames: ['model', 'provider'] as const,
    registers: [registry],
  }),
};

/** A micro-USD amount as a counter increment (exact below 2^53, i.e. 9 billion USD). */
export const microsValue = (amount: bigint): number => Number(amount);

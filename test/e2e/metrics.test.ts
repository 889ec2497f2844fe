// Prometheus metrics after a scripted run through the real stack (HTTP → Temporal → worker → PostgreSQL, a local
// chain for a deposit): every family moves by exactly what the run did, on the api's GET /metrics (behind its token)
// and on the METRICS_PORT listener alike (one registry per process).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilDevAccount } from '../../src/chain/local-chain.ts';
import { startMetricsServer } from '../../src/metrics/exposition.ts';
import { useLocalChain } from '../helpers/chain.ts';
import { useGateway } from '../helpers/gateway.ts';
import { call, registerAgent, type RegisteredAgent } from '../helpers/http.ts';
import { listenLocally } from '../../harness/local-server.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { type Sample, scrape, sumOf } from '../helpers/prometheus.ts';
import { type Receiver, startReceiver } from '../../harness/webhook-receiver.ts';

const token = 'metrics-token-for-the-test-0123456789';
const chain = useLocalChain();
const pngs = usePngInputServer();
let hooks: Receiver;
let missing: Server;
let missingUrl: string;
let listener: Awaited<ReturnType<typeof startMetricsServer>>;
beforeAll(async () => {
  // /gone answers 410 (the receiver is gone for good: no retry); every other path 200.
  hooks = await startReceiver(({ path }) => ({ status: path === '/gone' ? 410 : 200 }));
  missing = createServer((_req, res) => res.writeHead(404).end());
  missingUrl = (await listenLocally(missing)).url;
  listener = await startMetricsServer({ host: '127.0.0.1', port: 0, token });
});
afterAll(async () => {
  await hooks?.close();
  missing?.close();
  await listener?.stop();
});

const stack = useGateway(() => ({
  server: { trustProxy: 'loopback' },
  metrics: { token },
  // Three admissions per account for the whole run: the fourth is the 429.
  rateLimits: { windowSeconds: 1_000_000_000, admissions: { free: 3, starter: 3, pro: 3, enterprise: 3 } },
  chains: { enabled: ['base'], base: { rpcUrl: chain.rpcUrl, usdcAddress: chain.usdcAddress, confirmations: 1 } },
  deposits: {
    waitSeconds: 10,
    xpub: 'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8',
  },
}));

const apiMetrics = () => scrape(`${stack.app.url}/metrics`, token);
const speech = (webhookPath: string) => ({
  type: 'text-to-audio',
  model: 'local/espeak',
  prompt: 'Counted by Prometheus.',
  webhook_url: `${hooks.url.replace('/hook', '')}${webhookPath}`,
});

/** Polls a task until it ends, counting the reads (each is one GET /api/v1/generations/:id). */
async function pollToEnd(agent: RegisteredAgent, id: string): Promise<{ task: any; reads: number }> {
  for (let reads = 1; ; reads++) {
    const { body: task } = await call(stack, 'GET', `/generations/${id}`, { key: agent.api_key });
    if (task.status === 'completed' || task.status === 'failed') return { task, reads };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('GET /metrics', () => {
  it('answers only with the token', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${token}`]) {
      const response = await fetch(`${stack.app.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error: 'unauthorized',
        message: 'GET /metrics needs the metrics token as a Bearer token.',
      });
    }
    const response = await fetch(`${stack.app.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await response.text()).toMatch(/^# HELP gateway_tasks_ended_total /m);
  });

  it('counts what a scripted run did, exactly', async () => {
    const port = (listener.server.address() as AddressInfo).port;
    const before = await apiMetrics();

    const agent = await registerAgent(stack);
    const post = (body: object) => call(stack, 'POST', '/generations', { key: agent.api_key, body });
    const admitted = [
      await post(speech('/ok')),
      await post(speech('/gone')),
      await post({
        type: 'upscale',
        model: 'local/lanczos',
        image_url: `${missingUrl}/missing.png`,
        webhook_url: `${hooks.url.replace('/hook', '')}/failed`,
      }),
    ];
    expect(admitted.map(({ status }) => status)).toEqual([202, 202, 202]);
    const limited = await post(speech('/ok'));
    expect(limited.status).toBe(429);
    const ended = await Promise.all(admitted.map(({ body }) => pollToEnd(agent, body.id)));
    expect(ended.map(({ task }) => task.status)).toEqual(['completed', 'completed', 'failed']);
    const reads = ended.reduce((sum, { reads }) => sum + reads, 0);

    // A 402: an agent without a trial credit (the address's trial went to the first agent from it).
    const from = '198.19.7.1';
    await registerAgent(stack, { from });
    const broke = await registerAgent(stack, { from });
    const refused = await call(stack, 'POST', '/generations', {
      key: broke.api_key,
      body: { type: 'upscale', model: 'local/lanczos', image_url: `${pngs.url()}/input.png` },
    });
    expect(refused.status).toBe(402);
    expect((await call(stack, 'GET', '/nothing-here', { key: agent.api_key })).status).toBe(404);
    for (const path of ['/healthz', '/api/v1/openapi.json'])
      expect((await fetch(`${stack.app.url}${path}`)).status).toBe(200);

    // A deposit of 2.5 USDC, credited.
    const payer = anvilDevAccount(7);
    await chain.mint(payer.address, 2_500_000n);
    const txHash = await chain.transfer({
      from: payer,
      to: agent.deposit_addresses.base as Address,
      amount: 2_500_000n,
    });
    const credited = await call(stack, 'POST', '/agents/deposit', {
      key: agent.api_key,
      body: { chain: 'base', tx_hash: txHash },
    });
    expect(credited.body).toMatchObject({ success: true, amount_credited: '2.50' });

    // Webhooks: delivered to /ok (completed) and /failed (failed), gone at /gone.
    await expect
      .poll(() => hooks.received.map(({ path }) => path).sort(), { timeout: 15_000 })
      .toEqual(['/failed', '/gone', '/ok']);
    const tasks = await stack.database.prisma.task.findMany({ where: { accountId: agent.agent_id } });
    const [speechCharged, upscaleReserved] = [
      tasks.filter((task) => task.model === 'local/espeak').reduce((sum, task) => sum + task.costCharged!, 0n),
      tasks.find((task) => task.model === 'local/lanczos')!.costReserved,
    ];
    expect(upscaleReserved).toBe(500n);
    // The speech tasks are charged what they reserved: nothing of theirs is released.
    expect(tasks.filter((task) => task.model === 'local/espeak').map((task) => task.costCharged)).toEqual(
      tasks.filter((task) => task.model === 'local/espeak').map((task) => task.costReserved),
    );

    // The last attempt is recorded just after the receiver answered: wait for it.
    let after: Sample[] = [];
    await expect
      .poll(
        async () => {
          after = await apiMetrics();
          return sumOf(after, 'gateway_webhook_attempts_total') - sumOf(before, 'gateway_webhook_attempts_total');
        },
        { timeout: 10_000 },
      )
      .toBe(3);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sumOf(after, name, labels) - sumOf(before, name, labels);
    const generations = '/api/v1/generations';

    expect({
      admitted: delta('gateway_admissions_total', { outcome: 'admitted' }),
      insufficient: delta('gateway_admissions_total', { outcome: 'insufficient_balance' }),
      limited: delta('gateway_admissions_total', { outcome: 'rate_limited' }),
      all: delta('gateway_admissions_total'),
    }).toEqual({ admitted: 3, insufficient: 1, limited: 1, all: 5 });

    expect({
      posts202: delta('gateway_http_requests_total', { method: 'POST', route: generations, status: '202' }),
      posts402: delta('gateway_http_requests_total', { method: 'POST', route: generations, status: '402' }),
      posts429: delta('gateway_http_requests_total', { method: 'POST', route: generations, status: '429' }),
      reads: delta('gateway_http_requests_total', { method: 'GET', route: `${generations}/:id`, status: '200' }),
      timedReads: delta('gateway_http_request_duration_seconds_count', { method: 'GET', route: `${generations}/:id` }),
      registrations: delta('gateway_http_requests_total', { route: '/api/v1/agents/register', status: '201' }),
      deposits: delta('gateway_http_requests_total', { route: '/api/v1/agents/deposit', status: '200' }),
      unmatched: delta('gateway_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
      health: delta('gateway_http_requests_total', { method: 'GET', route: '/healthz', status: '200' }),
      openapi: delta('gateway_http_requests_total', { method: 'GET', route: '/api/v1/openapi.json', status: '200' }),
      errors402: delta('gateway_http_errors_total', { route: generations, code: 'insufficient_balance' }),
      errors429: delta('gateway_http_errors_total', { route: generations, code: 'rate_limited' }),
      notFound: delta('gateway_http_errors_total', { route: 'unmatched', code: 'not_found' }),
    }).toEqual({
      posts202: 3,
      posts402: 1,
      posts429: 1,
      reads,
      timedReads: reads,
      registrations: 3,
      deposits: 1,
      unmatched: 1,
      health: 1,
      openapi: 1,
      errors402: 1,
      errors429: 1,
      notFound: 1,
    });

    const espeak = { model: 'local/espeak', provider: 'local' };
    const lanczos = { model: 'local/lanczos', provider: 'local' };
    expect({
      completed: delta('gateway_tasks_ended_total', { ...espeak, status: 'completed' }),
      failed: delta('gateway_tasks_ended_total', { ...lanczos, status: 'failed' }),
      all: delta('gateway_tasks_ended_total'),
      timed: delta('gateway_task_duration_seconds_count'),
      timedCompleted: delta('gateway_task_duration_seconds_count', { ...espeak, status: 'completed' }),
      charged: delta('gateway_money_charged_micro_usd_total'),
      chargedSpeech: delta('gateway_money_charged_micro_usd_total', espeak),
      released: delta('gateway_money_released_micro_usd_total'),
      releasedUpscale: delta('gateway_money_released_micro_usd_total', lanczos),
    }).toEqual({
      completed: 2,
      failed: 1,
      all: 3,
      timed: 3,
      timedCompleted: 2,
      charged: Number(speechCharged),
      chargedSpeech: Number(speechCharged),
      released: 500,
      releasedUpscale: 500,
    });
    expect(delta('gateway_task_duration_seconds_sum')).toBeGreaterThan(0);

    expect({
      ok: delta('gateway_provider_calls_total', { provider: 'local', operation: 'run', outcome: 'ok' }),
      refused: delta('gateway_provider_calls_total', { provider: 'local', operation: 'run', outcome: 'refused' }),
      all: delta('gateway_provider_calls_total'),
      timed: delta('gateway_provider_call_duration_seconds_count', { provider: 'local' }),
      operator: delta('gateway_provider_operator_failures_total'),
    }).toEqual({ ok: 2, refused: 1, all: 3, timed: 3, operator: 0 });

    expect({
      completedDelivered: delta('gateway_webhook_attempts_total', {
        event: 'generation.completed',
        outcome: 'delivered',
      }),
      completedGone: delta('gateway_webhook_attempts_total', { event: 'generation.completed', outcome: 'gone' }),
      failedDelivered: delta('gateway_webhook_attempts_total', { event: 'generation.failed', outcome: 'delivered' }),
      deliveries: delta('gateway_webhook_deliveries_total'),
      deliveredEnded: delta('gateway_webhook_deliveries_total', { outcome: 'delivered' }),
    }).toEqual({ completedDelivered: 1, completedGone: 1, failedDelivered: 1, deliveries: 3, deliveredEnded: 2 });

    expect({
      deposits: delta('gateway_deposits_credited_total', { chain: 'base' }),
      micros: delta('gateway_deposits_credited_micro_usd_total', { chain: 'base' }),
    }).toEqual({ deposits: 1, micros: 2_500_000 });

    // The METRICS_PORT listener serves the same registry.
    const fromListener = await scrape(`http://127.0.0.1:${port}/metrics`, token);
    for (const name of ['gateway_tasks_ended_total', 'gateway_deposits_credited_micro_usd_total'])
      expect(sumOf(fromListener, name)).toBe(sumOf(after, name));
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });
});

// A retried write counts nothing twice: the deposit credit and the webhook attempt record are idempotent, and so are
// their metrics (counted only when the write changed something).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { registry } from '../../src/metrics/metrics.ts';
import { creditDeposit, recordDeposit } from '../../src/deposits/deposits.ts';
import { recordAttempt } from '../../src/webhooks/delivery-log.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { parseSamples, sumOf } from '../helpers/prometheus.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

const metricsNow = async () => parseSamples(await registry.metrics());

it('a deposit transaction credited twice (a retried activity) counts each of its deposits once, with its amount once', async () => {
  const accountId = await createFundedAccount(database.prisma, { kind: 'agent' });
  const transfer = (transferIndex: number, logIndex: number, amount: string) => ({
    from: '0x1111111111111111111111111111111111111111',
    to: '0x2222222222222222222222222222222222222222',
    amount,
    transferIndex,
    logIndex,
    accountId,
  });
  const facts = {
    chain: 'polygon' as const,
    txHash: `0x${'ab'.repeat(32)}`,
    transfers: [transfer(0, 3, '1250000'), transfer(1, 7, '250000')],
    blockNumber: '42',
  };
  await recordDeposit(database.prisma, facts, 'confirmed');
  const before = await metricsNow();
  await creditDeposit(database.prisma, facts);
  await creditDeposit(database.prisma, facts);
  const after = await metricsNow();
  const delta = (name: string) => sumOf(after, name, { chain: 'polygon' }) - sumOf(before, name, { chain: 'polygon' });
  expect({
    deposits: delta('gateway_deposits_credited_total'),
    micros: delta('gateway_deposits_credited_micro_usd_total'),
  }).toEqual({ deposits: 2, micros: 1_500_000 });
});

it('a webhook attempt recorded twice is counted once; the last attempt also ends the delivery', async () => {
  const accountId = await createFundedAccount(database.prisma, { kind: 'agent' });
  const message = await database.prisma.webhookMessage.create({
    data: { id: 'msg_metrics_once', accountId, event: 'deposit.credited', body: '{}' },
  });
  const attempt = (number: number, statusCode: number, nextAttemptAt: string | null) => ({
    workflowId: 'delivery-metrics-once',
    runId: 'run-1',
    messageId: message.id,
    url: 'https://hooks.test/a',
    attempt: number,
    statusCode,
    error: null,
    durationMs: 12,
    nextAttemptAt,
  });
  const event = { event: 'deposit.credited' };
  const before = await metricsNow();
  for (const record of [
    attempt(1, 503, new Date(Date.now() + 60_000).toISOString()),
    attempt(1, 503, new Date(Date.now() + 60_000).toISOString()),
    attempt(2, 204, null),
    attempt(2, 204, null),
  ])
    await recordAttempt(database.prisma, record);
  const after = await metricsNow();
  const delta = (name: string, labels: Record<string, string>) =>
    sumOf(after, name, { ...event, ...labels }) - sumOf(before, name, { ...event, ...labels });
  expect({
    retrying: delta('gateway_webhook_attempts_total', { outcome: 'retrying' }),
    delivered: delta('gateway_webhook_attempts_total', { outcome: 'delivered' }),
    attempts: delta('gateway_webhook_attempts_total', {}),
    ended: delta('gateway_webhook_deliveries_total', { outcome: 'delivered' }),
    deliveries: delta('gateway_webhook_deliveries_total', {}),
  }).toEqual({ retrying: 1, delivered: 1, attempts: 2, ended: 1, deliveries: 1 });
});

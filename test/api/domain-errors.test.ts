// Each domain refusal, thrown behind the error middleware, answers its exact status, headers and body (key order
// included): the table the API's error codes promise, one row per error class.
import { once } from 'node:events';
import type { Server } from 'node:http';
import express from 'express';
import { pinoHttp } from 'pino-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistrationCappedError } from '../../src/accounts/registration.ts';
import { errorHandler } from '../../src/api/middleware/errors.ts';
import { ModelRequestError } from '../../src/catalog/resolve.ts';
import {
  DepositRefusedError,
  FieldError,
  IdempotencyKeyReusedError,
  InvalidSignatureError,
  NotFoundError,
  OutputsExpiredError,
  PaymentRequiredError,
  PaymentReusedError,
  ServiceUnavailableError,
  TaskEndedError,
  TooManyTasksError,
  UploadQuotaError,
} from '../../src/domain/errors.ts';
import { InsufficientFundsError } from '../../src/ledger/ledger.ts';
import { testLogger } from '../helpers/logger.ts';

interface Row {
  name: string;
  error: () => Error;
  status: number;
  headers?: Record<string, string>;
  body: Record<string, unknown>;
}

const rows: Row[] = [
  {
    name: 'a model request refused',
    error: () => new ModelRequestError([{ field: 'model', message: 'unknown model "fal/nope"' }]),
    status: 400,
    body: { error: 'validation_error', message: 'Invalid body: model: unknown model "fal/nope"' },
  },
  {
    name: 'a field refused',
    error: () => new FieldError('chain', 'deposits on base are not enabled on this server'),
    status: 400,
    body: {
      error: 'validation_error',
      message: 'Invalid body: chain: deposits on base are not enabled on this server',
    },
  },
  {
    name: 'insufficient funds',
    error: () => new InsufficientFundsError(35_000n, 1_000_000n),
    status: 402,
    body: {
      error: 'insufficient_balance',
      message: 'This generation costs $0.035; the available balance is $1.00.',
      cost: 0.035,
      balance_available: 1,
    },
  },
  {
    name: 'an x402 payment required',
    error: () => new PaymentRequiredError('Pay 12.50 USD.', 12_500_000n, { x402Version: 2, accepts: [] }, 'eyJ4In0='),
    status: 402,
    headers: { 'payment-required': 'eyJ4In0=' },
    body: {
      error: 'payment_required',
      message: 'Pay 12.50 USD.',
      cost: 12.5,
      balance_available: 0,
      requirements: { x402Version: 2, accepts: [] },
    },
  },
  {
    name: 'a bad upstream signature',
    error: () => new InvalidSignatureError('The callback signature is missing, invalid or too old.'),
    status: 401,
    body: { error: 'invalid_signature', message: 'The callback signature is missing, invalid or too old.' },
  },
  {
    name: 'not found',
    error: () => new NotFoundError('No upload upl_1.'),
    status: 404,
    body: { error: 'not_found', message: 'No upload upl_1.' },
  },
  {
    name: 'a deposit refused',
    error: () => new DepositRefusedError('deposit_reverted', 'The transaction reverted: it moved no funds.'),
    status: 400,
    body: { error: 'deposit_reverted', message: 'The transaction reverted: it moved no funds.' },
  },
  {
    name: 'an Idempotency-Key reused',
    error: () => new IdempotencyKeyReusedError(),
    status: 409,
    body: {
      error: 'idempotency_key_reused',
      message: 'This Idempotency-Key was already used with a different request.',
    },
  },
  {
    name: 'a cancel of an ended task',
    error: () => new TaskEndedError('gen_1', 'completed'),
    status: 409,
    body: {
      error: 'conflict',
      message: 'Generation gen_1 has already completed: only a queued or processing task can be cancelled.',
      status: 'completed',
    },
  },
  {
    name: 'an x402 payment reused',
    error: () => new PaymentReusedError(),
    status: 409,
    body: { error: 'conflict', message: 'This x402 payment was already used for a different request; sign a new one.' },
  },
  {
    name: 'an upload past the quota',
    error: () => new UploadQuotaError(1000, 900n),
    status: 413,
    body: {
      error: 'upload_quota_exceeded',
      message:
        "This upload would exceed the account's upload quota of 1000 bytes (900 in use); delete uploads or wait until they expire.",
    },
  },
  {
    name: 'outputs past their retention',
    error: () => new OutputsExpiredError(new Date('2026-12-01T12:00:00.000Z'), 30),
    status: 410,
    body: {
      error: 'output_expired',
      message:
        'The outputs of this task expired on 2026-12-01T12:00:00.000Z and were deleted (outputs are kept 30 days after their task completes).',
    },
  },
  {
    name: 'outputs deleted, then kept forever',
    error: () => new OutputsExpiredError(new Date('2026-11-08T12:05:00.000Z'), 0),
    status: 410,
    body: { error: 'output_expired', message: 'The outputs of this task were deleted on 2026-11-08T12:05:00.000Z.' },
  },
  {
    name: 'registrations capped',
    error: () => new RegistrationCappedError(3, 60),
    status: 429,
    body: {
      error: 'registration_capped',
      message: 'Registration capped: at most 3 registrations per client address every 60 minutes. Try again later.',
    },
  },
  {
    name: 'too many tasks in flight',
    error: () => new TooManyTasksError('This payer already has 2 tasks queued or running.', 7),
    status: 429,
    headers: { 'retry-after': '7' },
    body: { error: 'rate_limited', message: 'This payer already has 2 tasks queued or running.' },
  },
  {
    name: 'a dependency down',
    error: () => new ServiceUnavailableError('The generation could not be admitted; nothing was charged.'),
    status: 503,
    headers: { 'retry-after': '5' },
    body: { error: 'service_unavailable', message: 'The generation could not be admitted; nothing was charged.' },
  },
];

let server: Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.use(pinoHttp({ logger: testLogger }));
  app.get('/refuse/:row', (req) => {
    throw rows[Number(req.params.row)]!.error();
  });
  app.use(errorHandler);
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('domain errors through the error middleware', () => {
  it.each(rows.map((row, index) => ({ ...row, index })))('$name', async ({ index, status, headers, body }) => {
    const response = await fetch(`${base}/refuse/${index}`);
    expect(response.status).toBe(status);
    expect(await response.text()).toBe(JSON.stringify(body));
    for (const [name, value] of Object.entries(headers ?? {})) expect(response.headers.get(name)).toBe(value);
    if (!headers?.['retry-after']) expect(response.headers.get('retry-after')).toBeNull();
    if (!headers?.['payment-required']) expect(response.headers.get('payment-required')).toBeNull();
  });
});

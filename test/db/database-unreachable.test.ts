// A database outage is a 503 for callers, whichever layer reports it: Prisma's codes, the adapter's kinds, and
// PostgreSQL's own SQLSTATEs for a server shutting down, crashed or recovering (met after a kill -9 and restart).
import { expect, it } from 'vitest';
import { isDatabaseUnreachable } from '../../src/db/unreachable.ts';
import { Prisma } from '../../src/generated/prisma/client.ts';

const adapterError = (cause: Record<string, unknown>, code = 'P2010') =>
  new Prisma.PrismaClientKnownRequestError('Database error', {
    code,
    clientVersion: 'test',
    meta: { driverAdapterError: { cause } },
  });

it.each([
  ['P1001 (cannot reach)', adapterError({}, 'P1001'), true],
  ['kind DatabaseNotReachable', adapterError({ kind: 'DatabaseNotReachable' }), true],
  ['kind ConnectionClosed', adapterError({ kind: 'ConnectionClosed' }), true],
  ['57P01 admin shutdown', adapterError({ kind: 'postgres', code: '57P01' }), true],
  ['57P02 crash shutdown', adapterError({ kind: 'postgres', code: '57P02' }), true],
  ['57P03 cannot connect now (recovering)', adapterError({ kind: 'postgres', code: '57P03' }), true],
  ['08006 connection failure', adapterError({ kind: 'postgres', code: '08006' }), true],
  ['42601 syntax error', adapterError({ kind: 'postgres', code: '42601' }), false],
  ['57014 query cancelled', adapterError({ kind: 'postgres', code: '57014' }), false],
  ['a unique violation', adapterError({ kind: 'UniqueConstraintViolation' }, 'P2002'), false],
  ['a plain error', new Error('boom'), false],
])('%s → unreachable: %s', (_name, error, expected) => {
  expect(isDatabaseUnreachable(error)).toBe(expected);
});

// PostgreSQL not answering (down, unreachable, out of connections) is an outage, not a bug: the caller is told to
// retry (503), never shown an internal error.
import { Prisma } from '../generated/prisma/client.ts';

// Prisma's codes: can't reach, timed out, operations timed out, connection closed, pool timeout.
const outageCodes = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
// The driver adapter's kinds for the same.
const outageKinds = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TlsConnectionError',
]);

// PostgreSQL's own SQLSTATEs for the same, which the adapter passes on as kind `postgres`: a connection exception
// (class 08), or the server shutting down, crashed or still recovering (57P01, 57P02, 57P03), as after a restart.
const outageStates = /^(08|57P0[123])/;

export function isDatabaseUnreachable(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientInitializationError) return true;
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  const cause = (error.meta?.driverAdapterError as { cause?: { kind?: unknown; code?: unknown } } | undefined)?.cause;
  const kind = cause?.kind;
  if (kind === 'postgres' && typeof cause?.code === 'string' && outageStates.test(cause.code)) return true;
  return outageCodes.has(error.code) || (typeof kind === 'string' && outageKinds.has(kind));
}

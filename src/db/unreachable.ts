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

export function isDatabaseUnreachable(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientInitializationError) return true;
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  const kind = (error.meta?.driverAdapterError as { cause?: { kind?: unknown } } | undefined)?.cause?.kind;
  return outageCodes.has(error.code) || (typeof kind === 'string' && outageKinds.has(kind));
}

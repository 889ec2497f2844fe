// The opaque `cursor` of GET /generations (and of the webhook delivery log): where the last row of a page sits in the
// order (created_at DESC, id DESC), as base64url JSON. A page after it starts strictly below that place, so a row
// created meanwhile (always above it) can neither shift nor repeat what follows.
import { taskIdPattern } from '../domain/values.ts';

/** A task's place in the history: its creation time and, among tasks created in the same millisecond, its id. */
export interface HistoryPosition {
  createdAt: Date;
  id: string;
}

export const encodeHistoryCursor = (position: HistoryPosition): string =>
  Buffer.from(JSON.stringify({ created_at: position.createdAt.toISOString(), id: position.id })).toString('base64url');

/** The task history's place a cursor names; undefined for anything `encodeHistoryCursor` did not write. */
export const decodeHistoryCursor = (cursor: string) => decodePositionCursor(cursor, taskIdPattern);

/** The place a cursor names, its id of the given form; undefined for anything not written here (garbled, tampered). */
export function decodePositionCursor(cursor: string, idPattern: RegExp): HistoryPosition | undefined {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof decoded !== 'object' || decoded === null) return undefined;
  const { created_at: createdAt, id } = decoded as Record<string, unknown>;
  if (typeof createdAt !== 'string' || typeof id !== 'string' || !idPattern.test(id)) return undefined;
  const position = { createdAt: new Date(createdAt), id };
  // Only the exact form written here round-trips: any other date text (or a valid one reformatted) is refused.
  const exact = !Number.isNaN(position.createdAt.getTime()) && position.createdAt.toISOString() === createdAt;
  return exact && encodeHistoryCursor(position) === cursor ? position : undefined;
}

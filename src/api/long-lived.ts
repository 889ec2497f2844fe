// Requests held open (event streams, `Prefer: wait`, MCP waits) cost a connection for as long as they last, not a
// read: each takes a slot of its account, its client address and this process until its response closes. Past the
// account's or the address's cap it is 429 `rate_limited`, past the process's 503, both with Retry-After.
import type { Request, Response } from 'express';
import type { LongLivedConfig } from '../config/config.ts';
import { clientAddress } from './client-address.ts';
import { ApiError } from './errors.ts';

/** A held request ends within a stream's lifetime or a wait: a slot frees up soon. */
const retryAfterSeconds = 10;

export interface LongLivedSlots {
  /** Takes a slot or throws the refusal; the result gives it back (once, however often it is called). */
  take(holder: { accountId?: string; address: string }): () => void;
}

function counter() {
  const counts = new Map<string, number>();
  return {
    count: (key: string) => counts.get(key) ?? 0,
    add(key: string, delta: number) {
      const next = (counts.get(key) ?? 0) + delta;
      if (next > 0) counts.set(key, next);
      else counts.delete(key);
    },
  };
}

export function createLongLivedSlots(caps: LongLivedConfig): LongLivedSlots {
  const accounts = counter();
  const addresses = counter();
  let total = 0;
  const refused = (message: string) =>
    new ApiError('rate_limited', message, {}, { 'Retry-After': String(retryAfterSeconds) });
  return {
    take({ accountId, address }) {
      if (accountId !== undefined && accounts.count(accountId) >= caps.perAccount) {
        throw refused(
          `Too many open event streams and waits: at most ${caps.perAccount} at once for this account; close one or try again in ${retryAfterSeconds} s.`,
        );
      }
      if (addresses.count(address) >= caps.perAddress) {
        throw refused(
          `Too many open event streams and waits: at most ${caps.perAddress} at once from this address; close one or try again in ${retryAfterSeconds} s.`,
        );
      }
      if (total >= caps.perProcess) {
        throw new ApiError(
          'service_unavailable',
          `This server holds as many open event streams and waits as it takes; try again in ${retryAfterSeconds} s.`,
          {},
          { 'Retry-After': String(retryAfterSeconds) },
        );
      }
      if (accountId !== undefined) accounts.add(accountId, 1);
      addresses.add(address, 1);
      total += 1;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        if (accountId !== undefined) accounts.add(accountId, -1);
        addresses.add(address, -1);
        total -= 1;
      };
    },
  };
}

/**
 * Holds a slot for this response until it closes. One response holds one slot: an MCP wait's looks at its task
 * (each a `Prefer: wait` on the same response) run within the slot their wait took.
 */
export function holdLongLived(slots: LongLivedSlots, req: Request, res: Response, accountId?: string): void {
  if (res.locals.longLivedSlot === true) return;
  const release = slots.take({ accountId, address: clientAddress(req) });
  res.locals.longLivedSlot = true;
  res.once('close', release);
  if (res.closed) release();
}

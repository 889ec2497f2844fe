// Requests held open (event streams, `Prefer: wait`, MCP waits) cost a connection for as long as they last, not a
// read: each takes a slot of its account, its client network and this process until its response closes. Past the
// account's or the network's cap it is 429 `rate_limited`, past the process's 503, both with Retry-After. The caps are
// this process's: N api processes behind the balancer hold N times as many.
import type { LongLivedConfig } from '../config/config.ts';
import type { Call } from './call.ts';
import { trialNetwork } from './client-address.ts';
import { ApiError } from './errors.ts';

/** A held request ends within a stream's lifetime or a wait: a slot frees up soon. */
const retryAfterSeconds = 10;

/** No one account or network holds more than this part of a process's slots, whatever its own cap says. */
const holderShareOfProcess = 0.1;

/** The caps an account and a client network are held to: their own, within their share of the process's. */
function holderCaps(caps: LongLivedConfig): { perAccount: number; perAddress: number } {
  const share = Math.max(1, Math.floor(caps.perProcess * holderShareOfProcess));
  return { perAccount: Math.min(caps.perAccount, share), perAddress: Math.min(caps.perAddress, share) };
}

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
  const { perAccount, perAddress } = holderCaps(caps);
  let total = 0;
  const refused = (message: string) =>
    new ApiError('rate_limited', message, {}, { 'Retry-After': String(retryAfterSeconds) });
  return {
    take({ accountId, address }) {
      if (accountId !== undefined && accounts.count(accountId) >= perAccount) {
        throw refused(
          `Too many open event streams and waits: at most ${perAccount} at once for this account; close one or try again in ${retryAfterSeconds} s.`,
        );
      }
      if (addresses.count(address) >= perAddress) {
        throw refused(
          `Too many open event streams and waits: at most ${perAddress} at once from this address; close one or try again in ${retryAfterSeconds} s.`,
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
 * Holds a slot for the call's exchange until it ends. One exchange holds one slot: an MCP wait's reads of its task run
 * within the slot their wait took.
 */
export function holdLongLived(
  slots: LongLivedSlots,
  { address, exchange }: Pick<Call, 'address' | 'exchange'>,
  accountId?: string,
): void {
  if (exchange.taken.has('long-lived')) return;
  // Per network as the trial counts (an IPv6 /48): a caller holding a whole /64, or more, is still one holder.
  const release = slots.take({ accountId, address: trialNetwork(address) });
  exchange.taken.add('long-lived');
  exchange.onEnd(release);
}

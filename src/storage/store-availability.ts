// Whether the store is up, asked at most every few seconds however many admissions ask: an answer is kept a while
// (longer when up), concurrent askers share one probe, and a probe that does not answer in time counts as down.
import { withDeadline } from '../net/deadline.ts';
import type { ObjectStore } from './object-store.ts';

const upForMs = 5_000;
const downForMs = 1_000;
const probeTimeoutMs = 3_000;

export function storeAvailability(store: Pick<ObjectStore, 'check'>): () => Promise<boolean> {
  let known: { up: boolean; until: number } | undefined;
  let probing: Promise<boolean> | undefined;
  const probe = async () => {
    const up = await withDeadline(probeTimeoutMs, [], (signal) => store.check(signal)).then(
      () => true,
      () => false,
    );
    known = { up, until: Date.now() + (up ? upForMs : downForMs) };
    return up;
  };
  return () => {
    if (known && Date.now() < known.until) return Promise.resolve(known.up);
    probing ??= probe().finally(() => (probing = undefined));
    return probing;
  };
}

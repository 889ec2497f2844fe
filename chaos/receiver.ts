// The tasks' webhook target: a receiver that may be down at first (nothing listening, then 503 with Retry-After),
// and that counts, per message id (`webhook-id`), the deliveries it acknowledged with a 2xx.
import { freePort } from '../harness/ports.ts';
import { type Receiver, startReceiver } from '../harness/webhook-receiver.ts';

export interface ChaosReceiver {
  url: string;
  /** Message id → deliveries answered 2xx. */
  acknowledged: Map<string, number>;
  /** Deliveries answered 503 while down. */
  refused: () => number;
  /** When it started answering 2xx. */
  upAt: number;
  close(): Promise<void>;
}

/** Closed for the first half of `downMs`, answering 503 for the second half, then 200. */
export async function startChaosReceiver(downMs = 0): Promise<ChaosReceiver> {
  const acknowledged = new Map<string, number>();
  const upAt = Date.now() + downMs;
  let refused = 0;
  const answer = (request: { headers: Record<string, unknown> }) => {
    if (Date.now() < upAt) {
      refused += 1;
      return { status: 503, headers: { 'retry-after': '1' } };
    }
    const id = String(request.headers['webhook-id']);
    acknowledged.set(id, (acknowledged.get(id) ?? 0) + 1);
    return { status: 200 };
  };
  const port = await freePort();
  let receiver: Receiver | undefined;
  let closed = false;
  const open = async () => {
    if (!closed) receiver = await startReceiver(answer, port);
  };
  const opening = downMs === 0 ? open() : new Promise((resolve) => setTimeout(resolve, downMs / 2)).then(open);
  if (downMs === 0) await opening;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    acknowledged,
    refused: () => refused,
    upAt,
    async close() {
      closed = true;
      await opening;
      await receiver?.close();
    },
  };
}

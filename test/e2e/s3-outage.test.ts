// The S3-compatible store stops while tasks run (STORAGE_DRIVER=s3): the tasks are not lost and not charged twice;
// they store their outputs once the store is back, and complete. 40 s: longer than the provider call's own retries
// last (five attempts, ~30 s), so only the wait for the store within the call gets them through.
import { describe, expect, it } from 'vitest';
import { checkedBalance } from '../helpers/balance.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { startGeneration, waitForEnd } from '../helpers/http.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { useS3Server } from '../helpers/s3-server.ts';

const s3 = useS3Server('gateway-outage', { sdkEnvironment: true });
const stack = useGateway(() => ({
  storage: { driver: 's3', s3: { bucket: s3.bucket, keyPrefix: '', forcePathStyle: true } },
}));
const owner = useFundedDeveloper(stack);
const inputs = usePngInputServer();
const outageSeconds = Number(process.env.S3_OUTAGE_SECONDS ?? 40);

describe('the store stops mid-run', () => {
  it(`for ${outageSeconds} s: every task completes once it is back, charged once`, async () => {
    await s3.stop();
    const started = Date.now();
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const body = { type: 'upscale', model: 'local/lanczos', image_url: `${inputs.url()}/photo-${i}.png` };
      ids.push(await startGeneration(stack, { key: owner.key, body }));
    }
    await new Promise((resolve) => setTimeout(resolve, outageSeconds * 1000 - (Date.now() - started)));
    await s3.start();
    const ended = await Promise.all(
      ids.map((id) => waitForEnd(stack, { key: owner.key, pollUrl: `/generations/${id}`, timeoutMs: 180_000 })),
    );
    expect(ended.map((task) => task.status)).toEqual(['completed', 'completed', 'completed']);
    for (const task of ended) expect((await fetch(task.output)).status).toBe(200);
    const charges = await stack.database.prisma.ledgerEntry.count({
      where: { accountId: owner.accountId, kind: 'charge' },
    });
    expect(charges).toBe(3);
    await checkedBalance(stack.database.prisma, owner.accountId);
  }, 300_000);
});

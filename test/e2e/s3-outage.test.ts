// The S3-compatible store stops while tasks run (STORAGE_DRIVER=s3): the tasks are not lost and not charged twice;
// they store their outputs once the store is back, and complete. 40 s: longer than the provider call's own retries
// last (five attempts, ~30 s), so only the wait for the store within the call gets them through. Meanwhile what needs
// the store is refused as an outage (503, Retry-After), nothing charged: new tasks, uploads, file downloads.
import { describe, expect, it } from 'vitest';
import { pngImage } from '../helpers/media.ts';
import { checkedBalance } from '../helpers/balance.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, postGeneration, startGeneration, waitForEnd } from '../helpers/http.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { useS3Server } from '../helpers/s3-server.ts';

const s3 = useS3Server('gateway-outage', { sdkEnvironment: true });
const stack = useGateway(() => ({
  storage: { driver: 's3', s3: { bucket: s3.bucket, keyPrefix: '', forcePathStyle: true } },
}));
const owner = useFundedDeveloper(stack);
// The tasks' inputs are held until the store is down, so they are admitted while it is up and store while it is not.
const held: (() => void)[] = [];
let releasedInputs = false;
const inputs = usePngInputServer({
  respond: (req, _res, sendPng) => (req.url?.startsWith('/held') && !releasedInputs ? held.push(sendPng) : sendPng()),
});
const outageSeconds = Number(process.env.S3_OUTAGE_SECONDS ?? 40);
const upscale = (path: string) => ({ type: 'upscale', model: 'local/lanczos', image_url: `${inputs.url()}${path}` });

async function until(condition: () => boolean, what: string) {
  for (const deadline = Date.now() + 60_000; !(await condition());) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function expectOutage(answer: { status: number; headers: Headers; body: unknown }) {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('5');
  expect(answer.body).toEqual({
    error: 'service_unavailable',
    message: 'The file store is unreachable; nothing was stored or charged. Retry shortly.',
  });
}

describe('the store stops mid-run', () => {
  it(`for ${outageSeconds} s: every task completes once it is back, charged once; what needs it meanwhile is a 503`, async () => {
    const before = await waitForEnd(stack, {
      key: owner.key,
      pollUrl: `/generations/${await startGeneration(stack, { key: owner.key, body: upscale('/before.png') })}`,
    });
    expect((await fetch(before.output)).status).toBe(200);
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(await startGeneration(stack, { key: owner.key, body: upscale(`/held-${i}.png`) }));
    // Two run at once (LOCAL_CONCURRENCY in tests); the third waits for a slot.
    await until(() => held.length === 2, 'the running tasks asking for their inputs');

    await s3.stop();
    const stopped = Date.now();
    releasedInputs = true;
    for (const send of held) send();
    // Admissions ask the store at most every 5 s (an answer is kept that long): past that, the next one finds it down.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const refused = await postGeneration(stack, { key: owner.key, body: upscale('/during.png') });
    expectOutage(refused);
    const download = await fetch(before.output);
    expectOutage({ status: download.status, headers: download.headers, body: await download.json() });
    const form = new FormData();
    form.append('file', new Blob([await pngImage()], { type: 'image/png' }), 'input');
    const upload = await fetch(`${stack.app.url}/api/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.key}` },
      body: form,
    });
    expectOutage({ status: upload.status, headers: upload.headers, body: await upload.json() });
    expect((await call(stack, 'GET', '/uploads', { key: owner.key })).body).toEqual({ uploads: [] });

    await new Promise((resolve) => setTimeout(resolve, outageSeconds * 1000 - (Date.now() - stopped)));
    await s3.start();
    const ended = await Promise.all(
      ids.map((id) => waitForEnd(stack, { key: owner.key, pollUrl: `/generations/${id}`, timeoutMs: 180_000 })),
    );
    expect(ended.map((task) => [task.status, task.error])).toEqual([
      ['completed', undefined],
      ['completed', undefined],
      ['completed', undefined],
    ]);
    for (const task of ended) expect((await fetch(task.output)).status).toBe(200);
    // Four tasks admitted (the one before and the three held), each charged once; the refused ones left no trace.
    const entries = await stack.database.prisma.ledgerEntry.groupBy({
      by: ['kind'],
      where: { accountId: owner.accountId },
      _count: true,
    });
    expect(Object.fromEntries(entries.map((entry) => [entry.kind, entry._count]))).toMatchObject({
      reserve: 4,
      charge: 4,
    });
    expect(await stack.database.prisma.task.count({ where: { accountId: owner.accountId } })).toBe(4);
    await checkedBalance(stack.database.prisma, owner.accountId);
  }, 300_000);
});

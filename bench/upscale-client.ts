// The benchmark's caller: a funded developer account that posts local/lanczos upscales of the bench inputs and can
// wait until every task it posted has ended.
import { createDeveloper } from '../src/accounts/accounts.ts';
import { credit } from '../src/ledger/ledger.ts';
import type { BenchService } from './embedded-service.ts';
import { sleep } from './load.ts';

export async function startUpscaleClient(service: BenchService, inputsUrl: string, name: string) {
  const { api, prisma } = service;
  const { developerId, apiKey } = await createDeveloper(prisma, { name, tier: 'enterprise' });
  await credit(prisma, {
    accountId: developerId,
    amount: 10_000_000_000n,
    kind: 'adjustment',
    idempotencyKey: `${name}:${developerId}`,
  });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey.key}` };
  /** Every task posted so far. */
  const ids: string[] = [];
  return {
    headers,
    ids,
    /** Posts an upscale of `<inputs>/<input>.png`; its task id. */
    async create(input: string): Promise<string> {
      const response = await fetch(`${api}/generations`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ type: 'upscale', model: 'local/lanczos', image_url: `${inputsUrl}/${input}.png` }),
      });
      if (response.status !== 202)
        throw new Error(`POST /generations answered ${response.status}: ${await response.text()}`);
      const { id } = (await response.json()) as { id: string };
      ids.push(id);
      return id;
    },
    /** Waits until every task posted so far has ended (none may fail); how long that took after the call, ms. */
    async drain(): Promise<number> {
      const started = Date.now();
      const deadline = started + 300_000;
      for (;;) {
        const open = await prisma.task.count({ where: { id: { in: ids }, status: { in: ['queued', 'processing'] } } });
        if (open === 0) break;
        if (Date.now() > deadline) throw new Error(`${open} tasks did not finish within 5 minutes`);
        await sleep(100);
      }
      const failed = await prisma.task.count({ where: { id: { in: ids }, status: 'failed' } });
      if (failed > 0) throw new Error(`${failed} benchmark tasks failed`);
      return Date.now() - started;
    },
  };
}

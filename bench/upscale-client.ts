// The benchmark's caller: a funded developer account that posts local/lanczos upscales of the bench inputs, each
// with a webhook to `webhooks` when given, and can wait until every task it posted has ended and had its webhook.
import { createDeveloper } from '../src/accounts/accounts.ts';
import { credit } from '../src/ledger/ledger.ts';
import type { BenchService } from './embedded-service.ts';
import { sleep } from './load.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

export async function startUpscaleClient(
  service: BenchService,
  inputsUrl: string,
  name: string,
  webhooks?: WebhookReceiver,
) {
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
  /** The tasks posted with a webhook: drain waits for their deliveries too. */
  const expectingWebhook: string[] = [];
  const undelivered = () => expectingWebhook.filter((id) => webhooks!.deliveredAt(id) === undefined).length;
  return {
    headers,
    ids,
    /** Posts an upscale of `<inputs>/<input>.png` (with a webhook, if the client has a receiver); its task id. */
    async create(input: string, { webhook = true } = {}): Promise<string> {
      const withWebhook = webhook && webhooks !== undefined;
      const body = {
        type: 'upscale',
        model: 'local/lanczos',
        image_url: `${inputsUrl}/${input}.png`,
        ...(withWebhook && { webhook_url: webhooks.url }),
      };
      const response = await fetch(`${api}/generations`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (response.status !== 202)
        throw new Error(`POST /generations answered ${response.status}: ${await response.text()}`);
      const { id } = (await response.json()) as { id: string };
      ids.push(id);
      if (withWebhook) expectingWebhook.push(id);
      return id;
    },
    /**
     * Waits until every task posted so far has ended (none may fail) and those posted with a webhook have had it
     * delivered, so a phase's CPU includes its deliveries; how long that took after the call, ms.
     */
    async drain(): Promise<number> {
      const started = Date.now();
      const deadline = started + 300_000;
      for (;;) {
        const open = await prisma.task.count({ where: { id: { in: ids }, status: { in: ['queued', 'processing'] } } });
        const waiting = undelivered();
        if (open === 0 && waiting === 0) break;
        if (Date.now() > deadline)
          throw new Error(`within 5 minutes, ${open} tasks did not finish and ${waiting} webhooks did not arrive`);
        await sleep(100);
      }
      const failed = await prisma.task.count({ where: { id: { in: ids }, status: 'failed' } });
      if (failed > 0) throw new Error(`${failed} benchmark tasks failed`);
      return Date.now() - started;
    },
  };
}

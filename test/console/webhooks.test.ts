// The Webhooks page in a real browser against the real stack: the account webhook set in the page reaches a real
// receiver, the delivery log shows the message and the receiver's answer, the secret revealed is the one that
// signed it (verified with standardwebhooks), Redeliver sends the same webhook-id again; a read-only key sees the URL
// and cannot change it. Screenshots go to docs/images/.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  collectPageErrors,
  launchChromium,
  newPage,
  type Page,
  seriousAccessibilityViolations,
  signIn,
} from '../../console/test-support/browser.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, generateAndWait } from '../helpers/http.ts';
import { type Receiver, startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';

const screenshot = (name: string) => join(import.meta.dirname, '..', '..', 'docs', 'images', `console-${name}.png`);

const gateway = useGateway();
const developer = useFundedDeveloper(gateway);
let browser: Browser;
let hooks: Receiver;

beforeAll(async () => {
  hooks = await startReceiver();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await hooks?.close();
});

async function openWebhooks(page: Page, key: string): Promise<void> {
  await signIn(page, gateway.app.url, key);
  await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
}

describe('console webhooks', () => {
  it('sets the webhook, shows each delivery with its answer, reveals the signing secret, and redelivers', async () => {
    const page = await newPage(browser);
    const errors = collectPageErrors(page);
    await openWebhooks(page, developer.key);
    await page.getByLabel('Webhook URL').fill(hooks.url);
    await page.getByRole('checkbox', { name: /A task completed/ }).check();
    await page.getByRole('checkbox', { name: /A task failed/ }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await call(gateway, 'GET', '/webhooks', { key: developer.key })).body).toMatchObject({
      webhook_url: hooks.url,
      events: ['generation.completed', 'generation.failed'],
    });

    const task = await generateAndWait(gateway, {
      key: developer.key,
      body: { type: 'text-to-audio', model: 'local/espeak', prompt: 'Delivered.' },
    });
    await expect.poll(() => hooks.received.length).toBe(1);
    const log = page.getByRole('region', { name: 'Deliveries' });
    // The log refreshes with the account's events; the attempt may be logged just after the task's last event.
    await expect
      .poll(
        async () => {
          if ((await log.getByText('HTTP 200').count()) === 0) await page.reload();
          return log.getByText('HTTP 200').count();
        },
        { timeout: 20_000 },
      )
      .toBe(1);
    await log.getByRole('link', { name: task.id }).waitFor();

    await page.getByRole('button', { name: 'Reveal secret' }).click();
    const secret = (await page.locator('.secret-value').textContent())!;
    expect(verifyDelivery(secret, hooks.received[0]!).data.id).toBe(task.id);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('webhooks'), fullPage: true });

    // Redelivery starts once the first schedule has ended (here, with the task's workflow: its first attempt landed).
    await gateway.env.client.workflow.getHandle(task.id).result();
    await log.getByRole('button', { name: 'Redeliver' }).click();
    await log.getByText('Sent again.').waitFor();
    await expect.poll(() => hooks.received.length).toBe(2);
    expect(hooks.received[1]!.headers['webhook-id']).toBe(hooks.received[0]!.headers['webhook-id']);
    await expect.poll(() => log.getByText('HTTP 200').count(), { timeout: 20_000 }).toBe(2);
    await page.setViewportSize({ width: 375, height: 812 });
    await page.screenshot({ path: screenshot('webhooks-375'), fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows a read-only key the URL, without Save, secret or log', async () => {
    const reader = await call(gateway, 'POST', '/keys', {
      key: developer.key,
      body: { name: 'reader', scopes: ['read'] },
    });
    const page = await newPage(browser);
    await openWebhooks(page, reader.body.api_key);
    await expect.poll(() => page.getByLabel('Webhook URL').inputValue()).toBe(hooks.url);
    await page.getByText('This key has no `keys` scope').waitFor();
    const completed = page.getByRole('checkbox', { name: /A task completed/ });
    expect([await completed.isChecked(), await completed.isDisabled()]).toEqual([true, true]);
    for (const name of ['Save', 'Reveal secret'])
      await expect(page.getByRole('button', { name }).count()).resolves.toBe(0);
    await expect(page.getByRole('region', { name: 'Deliveries' }).count()).resolves.toBe(0);
    await page.context().close();
  });
});

// The Keys and Usage pages in a real browser against the real stack: a key made with a policy (its secret shown once,
// copied, and working with that policy), its budget bar moving with its spend, Revoke refusing it everywhere; a
// read-only key seeing only itself; the usage report's figures and table as the API gives them, and its CSV download
// byte for byte the API's. Screenshots go to docs/images/.
import { readFile } from 'node:fs/promises';
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

const screenshot = (name: string) => join(import.meta.dirname, '..', '..', 'docs', 'images', `console-${name}.png`);

const gateway = useGateway();
const developer = useFundedDeveloper(gateway);
let browser: Browser;

const speech = (prompt: string) => ({ type: 'text-to-audio', model: 'local/espeak', prompt });
const usd = (amount: number) =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: 6,
  }).format(amount);

beforeAll(async () => {
  for (const prompt of ['One.', 'Two, a little longer.'])
    expect((await generateAndWait(gateway, { key: developer.key, body: speech(prompt) })).status).toBe('completed');
  browser = await launchChromium();
});
afterAll(() => browser?.close());

async function openPage(page: Page, key: string, name: string): Promise<void> {
  await signIn(page, gateway.app.url, key);
  await page.getByRole('navigation').getByRole('link', { name }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

describe('console keys', () => {
  it('makes a key with a policy, shows its secret once, tracks its budget, and revokes it', async () => {
    const page = await newPage(browser);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const errors = collectPageErrors(page);
    await openPage(page, developer.key, 'Keys');
    await page.getByRole('listitem').filter({ hasText: 'this session' }).waitFor();

    const form = page.getByRole('form', { name: 'New key' });
    await form.getByLabel('Name').fill('ci job');
    await form.getByLabel('Budget (USD)').fill('0.5');
    await form.getByLabel('Budget window').selectOption('day');
    await form.getByLabel('Most per task (USD)').fill('0.01');
    await form.getByLabel('Types allowed (none chosen: any)').selectOption(['text-to-audio']);
    await form.getByRole('button', { name: 'Create key' }).click();

    const secretPanel = page.getByRole('region', { name: 'Your new key' });
    const secret = (await secretPanel.locator('.secret-value').textContent())!;
    expect(secret).toMatch(/^sk_/);
    await secretPanel.getByRole('button', { name: 'Copy key' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    const made = await call(gateway, 'GET', '/keys/current', { key: secret });
    expect(made.body).toMatchObject({
      name: 'ci job',
      policy: { budget: { amount: 0.5, window: 'day' }, types: ['text-to-audio'], max_cost_per_task: 0.01 },
    });
    await secretPanel.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByText(secret).count()).resolves.toBe(0);

    // Its spend moves its bar (the account's event stream refreshes the list).
    const task = await generateAndWait(gateway, { key: secret, body: speech('Spent by the new key.') });
    const card = page.getByRole('listitem', { name: 'ci job' });
    const bar = card.getByRole('img');
    await expect
      .poll(() => bar.getAttribute('aria-label'), { timeout: 20_000 })
      .toBe(`${usd(task.cost)} spent and $0.00 reserved of $0.50 today`);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('keys'), fullPage: true });
    await page.setViewportSize({ width: 375, height: 812 });
    await page.screenshot({ path: screenshot('keys-375'), fullPage: true });

    await card.getByRole('button', { name: 'Revoke' }).click();
    await card.getByRole('button', { name: 'Yes, revoke' }).click();
    await card.getByText(/^revoked/).waitFor();
    await expect
      .poll(async () => (await call(gateway, 'GET', '/keys/current', { key: secret })).status, { timeout: 5_000 })
      .toBe(401);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('shows a read-only key itself only, with no form to make keys', async () => {
    const made = await call(gateway, 'POST', '/keys', {
      key: developer.key,
      body: { name: 'reader', scopes: ['read'] },
    });
    const page = await newPage(browser);
    await openPage(page, made.body.api_key, 'Keys');
    await page.getByRole('listitem', { name: 'reader' }).waitFor();
    await page.getByText('This key has no `keys` scope').waitFor();
    await expect(page.getByRole('form', { name: 'New key' }).count()).resolves.toBe(0);
    await page.context().close();
  });
});

describe('console usage', () => {
  it("shows the API's figures by day and by model, and downloads the API's own CSV", async () => {
    const page = await newPage(browser);
    const errors = collectPageErrors(page);
    await openPage(page, developer.key, 'Usage');
    const report = await call(gateway, 'GET', '/usage?group_by=model', { key: developer.key });
    const total = page.getByRole('region', { name: 'Total' });
    await total.getByText(usd(report.body.totals.cost), { exact: true }).waitFor();
    await total.locator('canvas').waitFor();

    await page.getByLabel('By', { exact: true }).selectOption('model');
    const row = page.getByRole('row', { name: /local\/espeak/ });
    const espeak = report.body.rows.find((each: { model: string }) => each.model === 'local/espeak');
    await expect.poll(() => row.getByRole('cell').first().textContent()).toBe(String(espeak.tasks));
    expect(await row.getByRole('cell').nth(3).textContent()).toBe(usd(espeak.cost));
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('usage'), fullPage: true });

    const from = await page.getByLabel('From (UTC day)').inputValue();
    const to = await page.getByLabel('To (UTC day, included)').inputValue();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const csv = await readFile((await download.path())!, 'utf8');
    const fromApi = await fetch(`${gateway.app.url}/api/v1/usage?from=${from}&to=${to}&group_by=model`, {
      headers: { authorization: `Bearer ${developer.key}`, accept: 'text/csv' },
    });
    expect(csv).toBe(await fromApi.text());
    expect(download.suggestedFilename()).toBe(`usage-${from}-${to}-by-model.csv`);

    await page.setViewportSize({ width: 375, height: 812 });
    await page.screenshot({ path: screenshot('usage-375'), fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

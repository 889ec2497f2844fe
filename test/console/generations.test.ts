// The Generations page and a task's page in a real browser against the real stack: the history with each output
// previewed (an upscaled PNG as a loaded thumbnail, espeak's audio playable), a filter kept in the URL, a task
// created meanwhile shown without a reload (the account's event stream), a task's outputs, timeline and Cancel with
// its refund, keyboard only and at 375 px. Screenshots go to docs/images/.
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  canPlay,
  collectPageErrors,
  launchChromium,
  newPage,
  seriousAccessibilityViolations,
  signIn,
} from '../../console/test-support/browser.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, generateAndWait, startGeneration } from '../helpers/http.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';

const screenshot = (name: string) => join(import.meta.dirname, '..', '..', 'docs', 'images', `console-${name}.png`);

const gateway = useGateway();
const developer = useFundedDeveloper(gateway);
// Inputs under /held/ wait until the test releases them, so a task stays `processing` meanwhile.
const held: (() => void)[] = [];
const inputs = usePngInputServer({
  width: 48,
  height: 32,
  respond: (req, _res: ServerResponse, sendPng) => {
    if (req.url?.startsWith('/held/')) held.push(sendPng);
    else sendPng();
  },
});
const upscale = (path: string) => ({ type: 'upscale', model: 'local/lanczos', image_url: `${inputs.url()}${path}` });
const speech = (prompt: string) => ({ type: 'text-to-audio', model: 'local/espeak', prompt });

let browser: Browser;
let heldTask: string;

beforeAll(async () => {
  for (const body of [speech('The first task.'), upscale('/photo.png')])
    expect((await generateAndWait(gateway, { key: developer.key, body })).status).toBe('completed');
  heldTask = await startGeneration(gateway, { key: developer.key, body: upscale('/held/photo.png') });
  browser = await launchChromium();
});
afterAll(async () => {
  held.splice(0).forEach((send) => send());
  await browser?.close();
});

describe('console generations', () => {
  it('lists the tasks with their outputs, filters by status in the URL, and shows a new task live', async () => {
    const page = await newPage(browser);
    const errors = collectPageErrors(page);
    await signIn(page, gateway.app.url, developer.key);
    await page.getByRole('link', { name: 'Generations', exact: true }).click();
    await page.getByRole('heading', { name: 'Generations', level: 1 }).waitFor();
    const tasks = page.locator('.task-list > li');
    await expect.poll(() => tasks.count()).toBe(3);
    const thumbnail = tasks.locator('img').first();
    await thumbnail.waitFor();
    await expect.poll(() => thumbnail.evaluate((image: { naturalWidth: number }) => image.naturalWidth)).toBe(96);
    await expect(canPlay(page, '.task-list audio')).resolves.toBe(true);
    await page.getByRole('status').getByText('Live').waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('generations'), fullPage: true });

    await page.getByLabel('Status').selectOption('completed');
    await expect.poll(() => tasks.count()).toBe(2);
    expect(new URL(page.url()).search).toBe('?status=completed');
    await page.reload();
    await expect.poll(() => tasks.count()).toBe(2);
    await page.getByLabel('Status').selectOption('');
    await expect.poll(() => tasks.count()).toBe(3);

    // Created by another client while the page is open: the event stream brings it, with no reload.
    await generateAndWait(gateway, { key: developer.key, body: speech('Arrived while you watched.') });
    await page.getByText('Arrived while you watched.').waitFor({ timeout: 20_000 });
    await expect.poll(() => tasks.count()).toBe(4);
    await tasks.first().getByText('completed').waitFor({ timeout: 20_000 });

    await page.setViewportSize({ width: 375, height: 812 });
    await page.screenshot({ path: screenshot('generations-375'), fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("opens a task's page by keyboard: outputs to download, the timeline, and Cancel refunds a running task", async () => {
    const page = await newPage(browser);
    const errors = collectPageErrors(page);
    await signIn(page, gateway.app.url, developer.key);
    await page.goto(`${gateway.app.url}/console/generations?type=upscale&status=completed`);
    const link = page.locator('.task-list').getByRole('link', { name: 'local/lanczos' });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Outputs' }).waitFor();
    const download = page.getByRole('link', { name: 'Download output 1' });
    const outputUrl = await download.getAttribute('href');
    expect((await fetch(outputUrl!)).headers.get('content-type')).toBe('image/png');
    const timeline = page.getByRole('region', { name: 'Events' });
    for (const event of ['queued', 'processing', 'completed'])
      await timeline.getByText(event, { exact: true }).waitFor();
    await expect(page.getByRole('button', { name: 'Cancel task' }).count()).resolves.toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('task'), fullPage: true });

    const before = await developer.balance();
    await page.goto(`${gateway.app.url}/console/generations/${heldTask}`);
    await page.getByRole('button', { name: 'Cancel task' }).click();
    await page.getByRole('button', { name: 'Yes, cancel' }).click();
    await page.getByRole('status').getByText('failed', { exact: true }).waitFor({ timeout: 20_000 });
    await timeline.getByText('failed', { exact: true }).waitFor();
    await page.getByText('Nothing charged').waitFor();
    expect(await developer.balance()).toBe(before);
    const reserved = await gateway.database.prisma.balance.findUniqueOrThrow({
      where: { accountId: developer.accountId },
    });
    expect(reserved.reserved).toBe(0n);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('filters by the key that made a task and by a range of days, kept in the URL', async () => {
    const bot = await call(gateway, 'POST', '/api/v1/keys', {
      key: developer.key,
      body: { name: 'nightly bot', scopes: ['generate', 'read'] },
    });
    const botTask = await generateAndWait(gateway, { key: bot.body.api_key, body: speech('Made by the bot.') });
    const all = (await call(gateway, 'GET', '/api/v1/generations?limit=100', { key: developer.key })).body.generations;
    const page = await newPage(browser);
    await signIn(page, gateway.app.url, developer.key);
    await page.getByRole('link', { name: 'Generations', exact: true }).click();
    const tasks = page.locator('.task-list > li');
    await expect.poll(() => tasks.count()).toBe(all.length);

    await page.getByLabel('Key').selectOption({ label: 'nightly bot' });
    await expect.poll(() => tasks.count()).toBe(1);
    await tasks.getByText('Made by the bot.').waitFor();
    expect(new URL(page.url()).searchParams.get('key_id')).toBe(bot.body.id);
    await page.getByLabel('Key').selectOption('');

    // Every task here was made today (UTC): a range ending yesterday holds none, one starting today all.
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('To').fill(yesterday);
    await page.getByText('No task matches these filters.').waitFor();
    await page.getByLabel('To').fill('');
    await page.getByLabel('From').fill(today);
    await expect.poll(() => tasks.count()).toBe(all.length);
    expect(new URL(page.url()).searchParams.get('from')).toBe(today);
    expect(all.map((task: { id: string }) => task.id)).toContain(botTask.id);
    await page.context().close();
  });
});

// The Playground in a real browser against the real stack: the quote before Generate (the API's own figure), a
// generation watched to its playable output, an upload used as an upscale's input, the copied curl command run as it
// is, the copied MCP call naming the same request, and a key whose policy refuses the model shown so and not sent.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  canPlay,
  collectPageErrors,
  launchChromium,
  newPage,
  type Page,
  seriousAccessibilityViolations,
  signIn,
} from '../../console/test-support/browser.ts';
import { projectRoot } from '../../src/infra/project-root.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, waitForEnd } from '../helpers/http.ts';

const screenshot = (name: string) => join(import.meta.dirname, '..', '..', 'docs', 'images', `console-${name}.png`);
const run = promisify(execFile);

const gateway = useGateway();
const developer = useFundedDeveloper(gateway);
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

const usd = (amount: string | number) =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: 6,
  }).format(Number(amount));

async function openPlayground(page: Page, key: string): Promise<void> {
  await signIn(page, gateway.app.url, key);
  await page.getByRole('navigation').getByRole('link', { name: 'Playground' }).click();
  await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
}

async function readClipboard(page: Page): Promise<string> {
  return page.evaluate('navigator.clipboard.readText()');
}

describe('console playground', () => {
  it('quotes, generates and plays speech, and copies the request as a curl command that runs', async () => {
    const page = await newPage(browser);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const errors = collectPageErrors(page);
    await openPlayground(page, developer.key);
    await page.getByLabel('Type').selectOption('text-to-audio');
    await page.getByLabel('Model').selectOption('local/espeak');
    await page.getByLabel('Prompt').fill('Made in the playground.');

    const quoted = await call(gateway, 'POST', '/agents/quote', {
      key: developer.key,
      body: { type: 'text-to-audio', model: 'local/espeak' },
    });
    await page.getByRole('button', { name: 'Get quote' }).click();
    await page.locator('.quote-cost').getByText(usd(quoted.body.cost_usd), { exact: true }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Copy as curl' }).click();
    await page.getByText('curl command copied.').waitFor();
    const curl = await readClipboard(page);
    expect(curl).not.toContain(developer.key);
    const created = await run('bash', ['-c', curl], { env: { ...process.env, GATEWAY_API_KEY: developer.key } });
    const copiedTask = JSON.parse(created.stdout) as { model: string; poll_url: string };
    expect(copiedTask.model).toBe('local/espeak');
    expect((await waitForEnd(gateway, { key: developer.key, pollUrl: copiedTask.poll_url })).status).toBe('completed');

    await page.getByRole('button', { name: 'Copy as MCP call' }).click();
    const mcp = JSON.parse(await readClipboard(page)) as {
      method: string;
      params: { name: string; arguments: object };
    };
    expect(mcp.method).toBe('tools/call');
    expect(mcp.params).toEqual({
      name: 'generate',
      arguments: { type: 'text-to-audio', model: 'local/espeak', prompt: 'Made in the playground.' },
    });

    // The OpenAI SDK code runs as it is copied (from a folder where `openai` resolves), writing the speech.
    await page.getByRole('button', { name: 'Copy as OpenAI SDK' }).click();
    await page.getByText('OpenAI SDK code copied.').waitFor();
    const sdk = await readClipboard(page);
    expect(sdk).not.toContain(developer.key);
    const folder = await mkdtemp(join(projectRoot, 'node_modules', '.playground-sdk-'));
    try {
      await run(process.execPath, ['--input-type=module', '-e', sdk], {
        cwd: folder,
        env: { ...process.env, GATEWAY_API_KEY: developer.key },
      });
      expect((await readFile(join(folder, 'speech'))).subarray(0, 4).toString()).toBe('RIFF');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }

    await page.getByRole('button', { name: 'Generate' }).click();
    const result = page.getByRole('region', { name: 'Result' });
    await result.getByText('completed', { exact: true }).waitFor({ timeout: 30_000 });
    await expect(canPlay(page, '.outputs audio')).resolves.toBe(true);
    await page.screenshot({ path: screenshot('playground'), fullPage: true });
    await result.getByRole('link', { name: 'Open the task' }).click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('generates by keyboard alone: Tab to the fields, type, Enter', async () => {
    const page = await newPage(browser);
    await openPlayground(page, developer.key);
    const focusedLabel = () =>
      page.evaluate('document.activeElement?.labels?.[0]?.textContent ?? document.activeElement?.textContent');
    const tabTo = async (label: string) => {
      for (let presses = 0; presses < 40 && (await focusedLabel()) !== label; presses += 1)
        await page.keyboard.press('Tab');
      expect(await focusedLabel()).toBe(label);
    };
    await tabTo('Type');
    // A focused <select> takes the option's first letters typed.
    await page.keyboard.type('text-to-audio');
    await expect.poll(() => page.getByLabel('Type').inputValue()).toBe('text-to-audio');
    await tabTo('Prompt');
    await page.keyboard.type('Typed, not clicked.');
    await tabTo('Generate');
    await page.keyboard.press('Enter');
    const result = page.getByRole('region', { name: 'Result' });
    await result.getByText('completed', { exact: true }).waitFor({ timeout: 30_000 });
    await page.context().close();
  });

  it('uploads a picture as the input of an upscale and shows the upscaled image', async () => {
    const page = await newPage(browser, { width: 375, height: 812 });
    const errors = collectPageErrors(page);
    await openPlayground(page, developer.key);
    await page.getByLabel('Type').selectOption('upscale');
    await expect(page.getByRole('button', { name: 'Generate' }).isDisabled()).resolves.toBe(true);
    const png = await sharp({ create: { width: 20, height: 12, channels: 3, background: '#cc6633' } })
      .png()
      .toBuffer();
    await page.getByLabel('or upload a file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: png });
    await expect.poll(() => page.getByLabel('Image URL').inputValue()).toMatch(/upl_/);
    await page.getByRole('button', { name: 'Generate' }).click();
    const output = page.locator('.outputs img');
    await output.waitFor({ timeout: 30_000 });
    await expect.poll(() => output.evaluate((image: { naturalWidth: number }) => image.naturalWidth)).toBe(40);
    await page.screenshot({ path: screenshot('playground-375'), fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("shows why the key's policy refuses the model, and keeps Generate off", async () => {
    const made = await call(gateway, 'POST', '/keys', {
      key: developer.key,
      body: { name: 'upscale only', policy: { models: ['local/lanczos'] } },
    });
    expect(made.status).toBe(201);
    const page = await newPage(browser);
    await openPlayground(page, made.body.api_key);
    await page.getByLabel('Type').selectOption('text-to-audio');
    await page.getByLabel('Prompt').fill('Not for this key.');
    // The quote follows the form: the type's first model is quoted once the type changes (the default type's
    // model, refused too, may show until then).
    await page.locator('.quote .error', { hasText: 'local/espeak' }).waitFor();
    expect(await page.locator('.quote .error').textContent()).toMatch(/may not use local\/espeak/);
    await expect(page.getByRole('button', { name: 'Generate' }).isDisabled()).resolves.toBe(true);
    await page.context().close();
  });

  it('keeps Generate off for a key without the generate scope, saying why', async () => {
    const made = await call(gateway, 'POST', '/keys', {
      key: developer.key,
      body: { name: 'reader', scopes: ['read'] },
    });
    const page = await newPage(browser);
    await openPlayground(page, made.body.api_key);
    await page.getByText('This key has no `generate` scope').waitFor();
    await page.getByLabel('Type').selectOption('text-to-audio');
    await page.getByLabel('Prompt').fill('Not with this key.');
    await expect(page.getByRole('button', { name: 'Generate' }).isDisabled()).resolves.toBe(true);
    await page.context().close();
  });
});

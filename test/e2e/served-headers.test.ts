// What the api's own origin serves beside the console (issue 55, point 15), in a real browser: an output under /files
// is never sniffed into another type and, opened on its own, runs nothing, yet still shows and plays, as do the
// console's previews of it; /docs allows this origin's scripts (and its one inline start-up script) and nothing else.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  collectPageErrors,
  launchChromium,
  newPage,
  type Page,
} from '../../console/test-support/browser.ts';
import { storedFileContentSecurityPolicy } from '../../src/api/middleware/stored-files.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { generateAndWait } from '../helpers/http.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';

const gateway = useGateway();
const inputs = usePngInputServer({ width: 64, height: 48 });
const developer = useFundedDeveloper(gateway);
let browser: Browser;
const outputs = { image: '', audio: '', video: '' };

beforeAll(async () => {
  const generated = async (body: object) => {
    const task = await generateAndWait(gateway, { key: developer.key, body, timeoutMs: 90_000 });
    expect(task.status).toBe('completed');
    return task.output as string;
  };
  const image = { type: 'upscale', model: 'local/lanczos', image_url: `${inputs.url()}/input.png` };
  outputs.image = await generated(image);
  outputs.audio = await generated({ type: 'text-to-audio', model: 'local/espeak', prompt: 'Hello.' });
  outputs.video = await generated({ ...image, type: 'image-to-video', model: 'local/ken-burns', duration: 3 });
  browser = await launchChromium();
}, 180_000);
afterAll(() => browser?.close());

/** Errors other than a missing favicon's (and the console's 503 where it is not built): policy violations among them. */
const policyErrors = (errors: string[]) => errors.filter((error) => !error.startsWith('Failed to load resource'));

/** Whether an element made on `page` from `url` loads: an image decodes, a player can play. */
const loads = (page: Page, tag: 'img' | 'audio' | 'video', url: string): Promise<boolean> =>
  page.evaluate(`new Promise((resolve) => {
    const element = document.createElement(${JSON.stringify(tag)});
    element.addEventListener(${JSON.stringify(tag === 'img' ? 'load' : 'canplay')}, () => resolve(true), { once: true });
    element.addEventListener('error', () => resolve(false), { once: true });
    element.setAttribute('src', ${JSON.stringify(url)});
    document.body.append(element);
  })`);

describe('/files (issue 55, point 15)', () => {
  it('sends an output with nosniff and a sandboxing CSP that allows nothing but the file itself', async () => {
    for (const url of Object.values(outputs)) {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const policy = response.headers.get('content-security-policy')!;
      expect(policy).toBe(storedFileContentSecurityPolicy);
      // A sandbox with no scripts, forms, popups or navigation; its own origin kept, so a player may fetch the file.
      expect(policy.split('; ')).toEqual(expect.arrayContaining(['sandbox allow-same-origin', "default-src 'none'"]));
      expect(policy).not.toMatch(/script-src|allow-scripts|https?:/);
    }
    // A missing file is answered under the same headers.
    const missing = await fetch(`${gateway.app.url}/files/gen_missing/a.png`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-security-policy')).toBe(storedFileContentSecurityPolicy);
  });

  it("still previews in the console's <img>, <audio> and <video>, under the console's own CSP", async () => {
    const page = await newPage(browser);
    const errors = collectPageErrors(page);
    // The console's origin and CSP (its page, or the "not built" one where the console is not built).
    await page.goto(`${gateway.app.url}/console`);
    expect(await loads(page, 'img', outputs.image)).toBe(true);
    expect(await loads(page, 'audio', outputs.audio)).toBe(true);
    expect(await loads(page, 'video', outputs.video)).toBe(true);
    expect(policyErrors(errors)).toEqual([]);
    await page.context().close();
  });

  it('opened on its own, an image shows and a video plays, with no policy violation', async () => {
    const page = await newPage(browser);
    const errors = collectPageErrors(page);
    await page.goto(outputs.image);
    await expect.poll(() => page.evaluate("document.querySelector('img')?.naturalWidth ?? 0")).toBeGreaterThan(0);
    for (const url of [outputs.video, outputs.audio]) {
      await page.goto(url);
      // The browser's own player document: it loads the file itself, as a player on the page would.
      await expect.poll(() => page.evaluate("document.querySelector('video, audio')?.readyState ?? 0")).toBe(4);
    }
    expect(policyErrors(errors)).toEqual([]);
    await page.context().close();
  });

  it('runs no script of a file served as a page: an upstream HTML stored by mistake stays inert', async () => {
    const taskId = new URL(outputs.image).pathname.split('/')[2]!;
    await writeFile(join(gateway.filesDir, taskId, 'page.html'), '<script>document.title = "ran"</script><p>inert</p>');
    const page = await newPage(browser);
    await page.goto(`${gateway.app.url}/files/${taskId}/page.html`);
    await page.getByText('inert').waitFor();
    expect(await page.title()).not.toBe('ran');
    await page.context().close();
  });
});

describe('/docs (issue 55, point 15)', () => {
  it('allows scripts of this origin and its own nonce only, no other origin, and still renders the reference', async () => {
    const response = await fetch(`${gateway.app.url}/docs`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const policy = response.headers.get('content-security-policy')!;
    const nonce = /script-src 'self' 'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeDefined();
    expect(await response.text()).toContain(`nonce="${nonce}"`);
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toMatch(/https?:|\*|unsafe-eval/);
    // A new nonce for every page.
    const again = await fetch(`${gateway.app.url}/docs`);
    expect(again.headers.get('content-security-policy')).not.toContain(nonce);
    const asset = await fetch(`${gateway.app.url}/docs/assets/standalone.js`);
    expect(asset.headers.get('x-content-type-options')).toBe('nosniff');

    const page = await newPage(browser);
    const errors = collectPageErrors(page);
    await page.goto(`${gateway.app.url}/docs`);
    // Rendered by Scalar's script from the OpenAPI document it fetched (its title, not the page's <title>).
    await page.getByRole('heading', { level: 1, name: 'Generation Gateway API' }).waitFor({ timeout: 30_000 });
    expect(policyErrors(errors)).toEqual([]);
    await page.context().close();
  });
});

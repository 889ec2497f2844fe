// A 3D output in the console: a text-to-3d task on fal's queue API (a local stand-in answering a GLB) shows in the
// task list and on its page in <model-viewer>, which loads the model from the gateway's /files link under the
// console's strict Content-Security-Policy (a blocked script, worker or fetch would be logged as an error).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import {
  type Browser,
  collectPageErrors,
  launchChromium,
  newPage,
  signIn,
} from '../../console/test-support/browser.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { generateAndWait } from '../helpers/http.ts';
import { glbTriangle, outputKind, outputMedia } from '../helpers/media.ts';
import { type FalStandIn, falStandInUserId, startFalStandIn } from '../stand-ins/fal-queue.ts';

let upstream: FalStandIn;
const catalog = loadCatalog();
const gateway = useGateway(async () => {
  const kindOf = (endpoint: string) =>
    outputKind(
      catalog.models.find((model) => model.upstream.model === endpoint)?.capabilities.output_modalities ?? ['image'],
    );
  upstream = await startFalStandIn({
    key: 'fal-test-key',
    media: { ...(await outputMedia()), model: glbTriangle() },
    kindOf,
  });
  return {
    providers: {
      fal: { key: 'fal-test-key', queueUrl: upstream.queueUrl, jwksUrl: upstream.jwksUrl, userId: falStandInUserId },
      pollIntervalMs: 50,
    },
  };
});
const developer = useFundedDeveloper(gateway);
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await upstream?.close();
});

/** Whether the page's first <model-viewer> has loaded its model (its own `loaded` property). */
const modelLoaded = (page: Awaited<ReturnType<typeof newPage>>) =>
  page
    .locator('model-viewer')
    .first()
    .evaluate((viewer: { loaded?: boolean }) => viewer.loaded === true);

describe('console 3D outputs', () => {
  it('shows a GLB output in <model-viewer>, in the list and on the task page', async () => {
    const task = await generateAndWait(gateway, {
      key: developer.key,
      body: { type: 'text-to-3d', model: 'fal/tripo-3d-v2.5', prompt: 'a teapot' },
    });
    expect(task.status).toBe('completed');
    expect(task.output).toMatch(/\.glb$/);
    const page = await newPage(browser);
    const errors = collectPageErrors(page);
    await signIn(page, gateway.app.url, developer.key);
    await page.getByRole('navigation').getByRole('link', { name: 'Generations' }).click();
    await page.locator('.task-list model-viewer').waitFor();
    await page.goto(`${gateway.app.url}/console/generations/${task.id}`);
    await page.locator('.outputs model-viewer').waitFor();
    await expect.poll(() => modelLoaded(page), { timeout: 20_000 }).toBe(true);
    expect(await page.locator('.outputs model-viewer').getAttribute('src')).toBe(task.output);
    const failure = page.getByText('The 3D viewer could not show it');
    expect(await failure.count(), (await failure.allTextContents()).join()).toBe(0);
    await page.screenshot({ path: join(import.meta.dirname, '..', '..', 'docs', 'images', 'console-task-3d.png') });
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

// The browser the console's tests drive: Debian's chromium through playwright-core (Playwright's own download is not
// reachable everywhere), and axe-core's scan; installed in console/node_modules, not the service's.
import { existsSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';

const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function chromiumPath(): string {
  const found = candidates.find((path): path is string => !!path && existsSync(path));
  if (!found) throw new Error('No chromium found: apt-get install -y chromium, or set CHROMIUM_PATH');
  return found;
}

export function launchChromium(): Promise<Browser> {
  // --no-sandbox: test machines and containers run as root, where Chromium's sandbox refuses to start. They have no
  // GPU either: WebGL (the 3D viewer's) then needs Chromium's software renderer, SwiftShader, allowed explicitly.
  const args = ['--no-sandbox', '--disable-dev-shm-usage', '--enable-unsafe-swiftshader'];
  return chromium.launch({ executablePath: chromiumPath(), args });
}

/** What axe-core finds serious or critical on the page as it is now: id, impact and where. */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target).join(', ')}`,
    );
}

/** Errors the page logs or throws, collected from now on. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/** First contentful paint of the page's last navigation, in milliseconds (the Paint Timing API, waited for). */
export function firstContentfulPaint(page: Page): Promise<number | undefined> {
  return page.evaluate(`new Promise((resolve) => {
    new PerformanceObserver((list) => {
      const entry = list.getEntriesByName('first-contentful-paint')[0];
      if (entry) resolve(entry.startTime);
    }).observe({ type: 'paint', buffered: true });
    setTimeout(() => resolve(undefined), 5000);
  })`);
}

/** A page in a context of its own (axe-core's scan opens pages beside it, which a bare page cannot). */
export async function newPage(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  return context.newPage();
}

export type { Browser, Page } from 'playwright-core';

/** The media element the locator finds, as far as these helpers use it (the service's TypeScript has no DOM types). */
interface MediaElement {
  preload: string;
  load(): void;
  addEventListener(type: string, listener: () => void, options: { once: boolean }): void;
}

/** Whether the browser can play the media element's source: it loads it and waits for canplay or an error. */
export function canPlay(page: Page, selector: string): Promise<boolean> {
  return page
    .locator(selector)
    .first()
    .evaluate(
      (element: MediaElement) =>
        new Promise<boolean>((resolve) => {
          element.addEventListener('canplay', () => resolve(true), { once: true });
          element.addEventListener('error', () => resolve(false), { once: true });
          element.preload = 'auto';
          element.load();
        }),
    );
}

/** The values the page keeps in sessionStorage and in localStorage. */
export function storedValues(page: Page): Promise<[string[], string[]]> {
  return page.evaluate('[Object.values(sessionStorage), Object.values(localStorage)]');
}

/** Opens the console at `baseUrl` and signs in with `key`; resolves on the Overview. */
export async function signIn(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

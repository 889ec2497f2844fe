// Without PUBLIC_BASE_URL (npm start), the console at either loopback name links outputs at the page's own origin
// (issue 55, point 22): signed in at http://127.0.0.1:PORT/console, an audio output is linked at 127.0.0.1, so the
// console's Content-Security-Policy (media-src 'self') lets it play, with no error in the browser's console; the
// same at localhost. The stored link names localhost either way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  canPlay,
  collectPageErrors,
  launchChromium,
  newPage,
  signIn,
} from '../../console/test-support/browser.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { generateAndWait } from '../helpers/http.ts';

const gateway = useGateway(() => ({}), { unpublished: true });
const developer = useFundedDeveloper(gateway);

let browser: Browser;
let port: string;

beforeAll(async () => {
  const body = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Heard at the page’s own address.' };
  const task = await generateAndWait(gateway, { key: developer.key, body });
  expect(task.status).toBe('completed');
  port = new URL(gateway.app.url).port;
  const stored = await gateway.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
  expect(stored.output).toMatch(new RegExp(`^http://localhost:${port}/files/`));
  browser = await launchChromium();
});
afterAll(() => browser?.close());

describe('the console without PUBLIC_BASE_URL', () => {
  it.each(['127.0.0.1', 'localhost'])(
    'signed in at %s, links outputs there and plays them with no CSP error',
    async (host) => {
      const origin = `http://${host}:${port}`;
      const page = await newPage(browser);
      const errors = collectPageErrors(page);
      await signIn(page, origin, developer.key);
      await page.getByRole('link', { name: 'Generations', exact: true }).click();
      const audio = page.locator('.task-list audio').first();
      await audio.waitFor();
      expect(await audio.getAttribute('src')).toMatch(new RegExp(`^${origin}/files/`));
      await expect(canPlay(page, '.task-list audio')).resolves.toBe(true);
      expect(errors).toEqual([]);
      await page.context().close();
    },
    60_000,
  );
});

// The README's first generation, run as written (its shell block, on npm start), then its key signed in to the
// console in Chromium: the agent's balance, and the task's speech listed and playable (issue 38's first point).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  canPlay,
  collectPageErrors,
  launchChromium,
  newPage,
  signIn,
} from '../../console/test-support/browser.ts';
import { projectRoot } from '../../src/infra/project-root.ts';
import { useNpmStart } from '../helpers/npm-start.ts';

const run = promisify(execFile);
const npmStart = useNpmStart('gateway-readme-console-');
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/** The README's "Try a generation (offline)" shell block, on this service's port. */
function readmeFirstGeneration(port: string): string {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Try a generation (offline)'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block.replaceAll('localhost:3000', `localhost:${port}`);
}

describe("the README's agent in the console", () => {
  it('signs in with the key the README prints and plays the speech it made', async () => {
    const service = await npmStart.startService();
    const port = npmStart.env.PORT!;
    const { stdout } = await run('bash', ['-c', readmeFirstGeneration(port)], { cwd: projectRoot });
    const key = /^(rf_\S+)$/m.exec(stdout)?.[1];
    expect(key, stdout).toBeDefined();

    const page = await newPage(browser);
    const errors = collectPageErrors(page);
    await signIn(page, `http://localhost:${port}`, key!);
    await page.getByRole('region', { name: 'Balance' }).getByText('Available').waitFor();
    const latest = page.getByRole('region', { name: 'Latest tasks' });
    await latest.getByText('local/espeak').waitFor();
    await latest.getByText('completed').waitFor({ timeout: 60_000 });
    await expect(canPlay(page, '.task-list audio[controls]')).resolves.toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
    expect(await npmStart.stopService(service), service.output()).toBe(0);
  }, 300_000);
});

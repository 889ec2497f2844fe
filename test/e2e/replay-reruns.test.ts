// genctl tasks replay, as an operator runs it day to day (issue 25): a replay runs like a fresh task, a task its
// caller cancelled is left alone unless asked for, and `--since 1h` run again names the same batch. Real stack, real
// genctl; each test has an account of its own and selects by it.
import { afterEach, describe, expect, it } from 'vitest';
import { cancelledError } from '../../workflows/contracts/generation.types.ts';
import { batchWindowMs } from '../../src/cli/replay-commands.ts';
import { skipReasons } from '../../src/domain/replay-reasons.ts';
import { runGenctl } from '../helpers/genctl.ts';
import { cancelTask, useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { startGeneration, waitForEnd } from '../helpers/http.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';

const stack = useGateway();

// Each path answers as the test sets it: 404 (the input is missing; `missing-page`: with a megabyte of error page, as
// a development server may send), held (answered on release()), or the PNG.
const answers = new Map<string, 'missing' | 'missing-page' | 'held'>();
let held: (() => void)[] = [];
/** Whether the connection of each error page sent has closed. */
const errorPageClosed: boolean[] = [];
const inputs = usePngInputServer({
  respond: (req, res, sendPng) => {
    const answer = answers.get(req.url ?? '');
    if (answer === 'missing') res.writeHead(404, { 'content-type': 'text/plain' }).end('no such input');
    else if (answer === 'missing-page') {
      const page = errorPageClosed.push(false) - 1;
      req.socket.once('close', () => (errorPageClosed[page] = true));
      res.writeHead(404, { 'content-type': 'text/html' }).end(Buffer.alloc(1 << 20, 'x'));
    } else if (answer === 'held') held.push(sendPng);
    else sendPng();
  },
});

/** Answers the held requests (a cancelled download's socket is gone: its answer goes nowhere). */
function release(): void {
  answers.clear();
  for (const send of held) send();
  held = [];
}

afterEach(release);

const genctl = (...args: string[]) =>
  runGenctl(
    {
      DATABASE_URL: stack.database.url,
      TEMPORAL_ADDRESS: stack.env.address,
      TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
    },
    ['tasks', 'replay', '--status', 'failed', ...args],
  );

const upscale = (path: string) => ({
  type: 'upscale',
  model: 'local/lanczos',
  image_url: `${inputs.url()}${path}`,
  resolution: '4x',
});

/** A task whose input answers 404: it fails, as it should. */
async function failedOnMissingInput(key: string, path: string, answer: 'missing' | 'missing-page' = 'missing') {
  answers.set(path, answer);
  const id = await startGeneration(stack, { key, body: upscale(path) });
  const ended = await waitForEnd(stack, { key, pollUrl: `/generations/${id}` });
  expect(ended).toMatchObject({ status: 'failed', error: expect.stringMatching(/HTTP 404/) });
  return id;
}

describe('genctl tasks replay (issue 25)', () => {
  const owner = useFundedDeveloper(stack);

  it('a replayed task runs like a fresh one: it completes promptly once its input is back', async () => {
    const original = await failedOnMissingInput(owner.key, '/back-later.png');
    answers.delete('/back-later.png');

    const started = Date.now();
    const replay = await genctl('--account', owner.accountId, '--since', '1h', '--json');
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.json).toMatchObject({ selected: 1, replayed: 1, completed: 1, failed_again: 0, pending: 0 });
    // The model's timeout is 120 s; the same request posted fresh completes in under a second.
    expect(Date.now() - started).toBeLessThan(60_000);
    const replayId = replay.json.items[0].replay_id;
    const row = await stack.database.prisma.task.findUniqueOrThrow({ where: { id: replayId } });
    expect(row).toMatchObject({ status: 'completed', replayOf: original });
  }, 150_000);

  const pageOwner = useFundedDeveloper(stack);

  it('a refused input’s connection is let go at once, so a host serving one connection at a time answers the replay', async () => {
    await failedOnMissingInput(pageOwner.key, '/error-page.png', 'missing-page');
    // Let go before the task failed. Unread, the page held its connection until garbage collection or the download's
    // own 30 s limit (or for ever, that limit lost to garbage collection): a one-connection server answered nobody else.
    await expect.poll(() => errorPageClosed.at(-1), { timeout: 2_000 }).toBe(true);
    answers.delete('/error-page.png');
    const replay = await genctl('--account', pageOwner.accountId, '--since', '1h', '--json');
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.json).toMatchObject({ selected: 1, replayed: 1, completed: 1, failed_again: 0 });
  }, 150_000);

  const canceller = useFundedDeveloper(stack);

  it('skips a task its caller cancelled, unless --include-cancelled asks for it', async () => {
    answers.set('/held.png', 'held');
    const cancelled = await startGeneration(stack, { key: canceller.key, body: upscale('/held.png') });
    await expect
      .poll(async () => (await stack.database.prisma.task.findUniqueOrThrow({ where: { id: cancelled } })).status, {
        timeout: 15_000,
      })
      .toBe('processing');
    await cancelTask(stack, cancelled);
    const row = await stack.database.prisma.task.findUniqueOrThrow({ where: { id: cancelled } });
    expect(row.error).toBe(cancelledError);
    answers.clear();
    const failed = await failedOnMissingInput(canceller.key, '/missing.png');
    answers.clear();

    const routine = await genctl('--account', canceller.accountId, '--since', '1h');
    expect(routine.code, routine.stderr).toBe(0);
    expect(routine.stdout).toMatch(/Replayed\s+1\n/);
    expect(routine.stdout).toMatch(new RegExp(`${skipReasons.cancelled}\\s+1\\n`));
    expect(routine.stdout).toContain(`${cancelled}  -       skipped: ${skipReasons.cancelled}`);
    const { prisma } = stack.database;
    expect(await prisma.task.count({ where: { replayOf: cancelled } })).toBe(0);
    expect(await prisma.task.count({ where: { replayOf: failed } })).toBe(1);

    const asked = await genctl('--account', canceller.accountId, '--since', '1h', '--include-cancelled', '--json');
    expect(asked.code, asked.stderr).toBe(0);
    const item = asked.json.items.find((entry: any) => entry.task_id === cancelled);
    expect(item).toMatchObject({ outcome: 'replayed', replay_status: 'completed' });
    expect(await prisma.task.count({ where: { replayOf: cancelled } })).toBe(1);
  }, 150_000);

  const rerunner = useFundedDeveloper(stack);

  it('--since 1h run again names the same batch, and attaches to it while it runs', async () => {
    await failedOnMissingInput(rerunner.key, '/again.png');
    // The replay's input is held: the batch waits for it, still running when the command runs again.
    answers.set('/again.png', 'held');
    const args = ['--account', rerunner.accountId, '--since', '1h'];
    // Two dry runs in one window of the clock (a run in the next one attaches only to a batch still running).
    const intoWindow = Date.now() % batchWindowMs;
    if (intoWindow > batchWindowMs - 30_000)
      await new Promise((resolve) => setTimeout(resolve, batchWindowMs - intoWindow));

    const dryRuns = [await genctl(...args, '--dry-run', '--json')];
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    dryRuns.push(await genctl(...args, '--dry-run', '--json'));
    expect(dryRuns[1]!.json.batch_id).toBe(dryRuns[0]!.json.batch_id);

    const first = await genctl(...args, '--no-wait', '--json');
    expect(first.code, first.stderr).toBe(0);
    await expect.poll(() => held.length, { timeout: 30_000 }).toBe(1);
    const running = genctl(...args, '--json');
    // Time for genctl to start and attach, well within the held download's own 30 s limit.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    release();
    const second = await running;
    expect(second.code, second.stderr).toBe(0);
    expect(second.json.batch_id).toBe(first.json.batch_id);
    expect(second.json.batch_id).toBe(dryRuns[0]!.json.batch_id);
    // The second command attached to the running batch: it reports that batch's replay, and there is only one.
    expect(second.json).toMatchObject({ selected: 1, replayed: 1, completed: 1 });
    expect(
      await stack.database.prisma.task.count({ where: { replayOf: { not: null }, accountId: rerunner.accountId } }),
    ).toBe(1);
  }, 150_000);
});

// Budget alerts through the real stack: a key's budget window reaching 80 % and then 100 % tells the account once per
// key, window and threshold, on its event stream (GET /events) and at its webhook (signed, verified with the
// standardwebhooks library), never again in that window even after failed tasks give the budget back; a key with a
// policy streams only its own tasks and the alerts of its own keys.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateGenerationBodySchema } from '../../src/api/resources/generations/generations.schemas.ts';
import { admitTask } from '../../src/generations/tasks.ts';
import { credit } from '../../src/ledger/ledger.ts';
import {
  ensureTaskReconcilerSchedule,
  taskReconcilerScheduleId,
} from '../../src/use-cases/generations/task-reconciler.ts';
import { balanceGenerationInput } from '../helpers/generation-input.ts';
import { type Receiver, startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';
import { openEventStream, type OpenedEventStream, type StreamEvent } from '../helpers/event-stream.ts';
import { useGateway } from '../helpers/gateway.ts';
import { call, type RegisteredAgent, registerAgent, waitForEnd } from '../helpers/http.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';

const gateway = useGateway();
/** local/lanczos: $0.0005 flat per upscale. */
const upscaleMicros = 500;
const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Mine.' };

// Inputs under /held/ wait until the test lets them go, then are not found: the task fails and gives its budget back.
const held: ServerResponse[] = [];
const inputs = usePngInputServer({
  respond: (req, res, sendPng) => (req.url?.startsWith('/held/') ? held.push(res) : sendPng()),
});
const failHeldInputs = () => held.splice(0).forEach((res) => res.writeHead(404).end());
const heldUpscale = () => ({
  type: 'upscale',
  model: 'local/lanczos',
  image_url: `${inputs.url()}/held/${Math.random()}.png`,
  resolution: '2x',
});

let hooks: Receiver;
let agent: RegisteredAgent;
beforeAll(async () => {
  hooks = await startReceiver();
  agent = await registerAgent(gateway, { body: { webhook_url: hooks.url } });
  await credit(gateway.database.prisma, {
    accountId: agent.agent_id,
    amount: 1_000_000n,
    kind: 'adjustment',
    idempotencyKey: `topup:${agent.agent_id}`,
  });
});
afterAll(async () => {
  failHeldInputs();
  await hooks?.close();
});

const createKey = async (key: string, body: object) => {
  const created = await call(gateway, 'POST', '/api/v1/keys', { key, body });
  expect(created.status).toBe(201);
  return created.body as { id: string; api_key: string };
};
const generate = (key: string, body: object) => call(gateway, 'POST', '/api/v1/generations', { key, body });
const isFinal = (event: StreamEvent) => event.event === 'completed' || event.event === 'failed';

/** Reads the stream until the final events of all `taskIds` have come; returns everything it read. */
async function readUntilEnded(stream: OpenedEventStream, taskIds: string[]): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  const ended = () => taskIds.every((id) => seen.some((event) => isFinal(event) && event.data.id === id));
  while (!ended()) seen.push(await stream.next(30_000));
  return seen;
}

/**
 * Admits `count` upscales one after the other (each 202) and is refused one more (the budget is full), then fails them
 * all and waits until they have ended.
 */
async function fillThenFail(key: string, count: number): Promise<string[]> {
  const admitted: { id: string; poll_url: string }[] = [];
  for (let index = 0; index < count; index += 1) {
    const answer = await generate(key, heldUpscale());
    expect(answer.status).toBe(202);
    admitted.push(answer.body);
  }
  expect((await generate(key, heldUpscale())).body.error).toBe('budget_exceeded');
  // The local engine runs a few at a time: each input is failed as its task asks for it.
  const failing = setInterval(failHeldInputs, 50);
  try {
    const ended = await Promise.all(admitted.map((task) => waitForEnd(gateway, { key, pollUrl: task.poll_url })));
    expect(ended.map((task) => task.status)).toEqual(admitted.map(() => 'failed'));
  } finally {
    clearInterval(failing);
  }
  return admitted.map((task) => task.id);
}

const budgetDeliveries = () =>
  hooks.received.filter((delivery) => JSON.parse(delivery.body).event === 'key.budget_threshold');

describe('key budget alerts', () => {
  it('80 % then 100 % of a window: one event each on the account stream and at the webhook, never repeated', async () => {
    const account = await openEventStream(gateway, '/events', { key: agent.api_key });
    const budgeted = await createKey(agent.api_key, {
      name: 'five-upscales',
      policy: { budget: { amount: (5 * upscaleMicros) / 1_000_000, window: 'day' } },
    });
    const own = await openEventStream(gateway, '/events', { key: budgeted.api_key });
    const sibling = await createKey(agent.api_key, { name: 'sibling', policy: { types: ['text-to-audio'] } });
    const siblingStream = await openEventStream(gateway, '/events', { key: sibling.api_key });

    // The 4th admission reaches 80 %, the 5th 100 %. Failed, they give the budget back, and the window reaches both
    // again: no second alert.
    const first = await fillThenFail(budgeted.api_key, 5);
    const second = await fillThenFail(budgeted.api_key, 5);
    const siblingTask = await generate(sibling.api_key, speech);
    expect(siblingTask.status).toBe(202);

    const seen = await readUntilEnded(account, [...first, ...second, siblingTask.body.id]);
    const alerts = seen.filter((event) => event.event === 'key.budget_threshold');
    const common = {
      key_id: budgeted.id,
      key_name: 'five-upscales',
      limit: 0.0025,
      spent: 0,
      window: 'day',
      resets_at: expect.stringMatching(/T00:00:00\.000Z$/),
    };
    expect(alerts.map((event) => event.data)).toEqual([
      { ...common, threshold: 80, reserved: 0.002 },
      { ...common, threshold: 100, reserved: 0.0025 },
    ]);
    // In commit order: the 80 % alert right after the 4th task's queued event, the 100 % one after the 5th's.
    const queuedAt = (taskId: string) =>
      seen.findIndex((event) => event.event === 'queued' && event.data.id === taskId);
    expect(seen.indexOf(alerts[0]!)).toBe(queuedAt(first[3]!) + 1);
    expect(seen.indexOf(alerts[1]!)).toBe(queuedAt(first[4]!) + 1);

    // The task's own stream does not carry the account's alert.
    const fourth = await (
      await openEventStream(gateway, `/generations/${first[3]}/events`, { key: agent.api_key })
    ).rest();
    expect(fourth.map((event) => event.event)).not.toContain('key.budget_threshold');

    // The budgeted key's own stream: its tasks and its alerts; the sibling's: neither (its own task only).
    const ownSeen = await readUntilEnded(own, [...first, ...second]);
    expect(ownSeen.filter((event) => event.event === 'key.budget_threshold')).toEqual(alerts);
    const siblingSeen = await readUntilEnded(siblingStream, [siblingTask.body.id]);
    expect(siblingSeen.every((event) => event.data.id === siblingTask.body.id)).toBe(true);
    for (const stream of [account, own, siblingStream]) stream.close();

    // The webhook: one signed delivery per alert, its data as the stream's; nothing more comes.
    await expect.poll(() => budgetDeliveries().length, { timeout: 15_000 }).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const delivered = budgetDeliveries().map((delivery) => verifyDelivery(agent.webhook_secret!, delivery));
    expect(delivered.sort((a, b) => a.data.threshold - b.data.threshold)).toEqual(
      alerts.map((event) => ({ event: 'key.budget_threshold', data: event.data })),
    );
  });

  it("a key with a policy streams only its own tasks: another key's task is not on its GET /events", async () => {
    const limited = await createKey(agent.api_key, { name: 'own-stream', policy: { types: ['text-to-audio'] } });
    const stream = await openEventStream(gateway, '/events', { key: limited.api_key });
    const others = await generate(agent.api_key, speech);
    await waitForEnd(gateway, { key: agent.api_key, pollUrl: others.body.poll_url });
    const own = await generate(limited.api_key, speech);
    const seen = await readUntilEnded(stream, [own.body.id]);
    stream.close();
    expect(seen.some((event) => event.data.id === others.body.id)).toBe(false);
    expect(seen.filter((event) => event.data.id === own.body.id).map((event) => event.event)[0]).toBe('queued');
  });

  it('an alert whose worker stopped before starting its webhook is sent by the task reconciler', async () => {
    const { prisma } = gateway.database;
    const key = await createKey(agent.api_key, {
      name: 'one-upscale',
      policy: { budget: { amount: upscaleMicros / 1_000_000, window: 'month' } },
    });
    // The admission commits (the admit activity's own service call) and nothing after it runs: the worker stopped.
    // One task fills the budget: 80 % and 100 % at once.
    const body = CreateGenerationBodySchema.parse({ ...heldUpscale(), image_url: `${inputs.url()}/input.png` });
    const input = balanceGenerationInput(gateway, { accountId: agent.agent_id, body, idempotencyKey: null });
    await admitTask(prisma, { ...input, costMicros: BigInt(input.costMicros), apiKeyId: key.id });
    const ofKey = { apiKeyId: key.id };
    expect(await prisma.keyBudgetAlert.count({ where: { ...ofKey, notifiedAt: null } })).toBe(2);
    // Older than TASK_RECONCILE_AFTER_SECONDS: its admission's worker would have started it long ago.
    await prisma.keyBudgetAlert.updateMany({ where: ofKey, data: { createdAt: new Date(Date.now() - 20 * 60_000) } });

    await ensureTaskReconcilerSchedule(gateway.env.client, gateway.config);
    await gateway.env.client.schedule.getHandle(taskReconcilerScheduleId).trigger();
    const ofThisKey = () =>
      budgetDeliveries()
        .map((delivery) => verifyDelivery(agent.webhook_secret!, delivery))
        .filter((delivered) => delivered.data.key_id === key.id);
    await expect.poll(() => ofThisKey().length, { timeout: 30_000 }).toBe(2);
    expect(
      ofThisKey()
        .map((delivered) => delivered.data.threshold)
        .sort((a, b) => a - b),
    ).toEqual([80, 100]);
    await expect.poll(() => prisma.keyBudgetAlert.count({ where: { ...ofKey, notifiedAt: null } })).toBe(0);
  });
});

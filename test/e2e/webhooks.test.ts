// Webhooks through the real stack: a generation that completes and one that fails each send their event to the
// task's webhook_url and to the agent's webhook, signed with the agent's secret and verified by the receiver with
// the standardwebhooks library; the body's data is the task exactly as GET /generations/{id} answers it.
import { createServer, type Server } from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryWorkflowId, webhookMessageId } from '../../src/webhooks/messages.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, generateAndWait, registerAgent } from '../helpers/http.ts';
import { listenLocally } from '../../harness/local-server.ts';
import { type Receiver, startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';

// Each agent registers from its own address (through the trusted loopback proxy), so each gets its trial credit.
const stack = useGateway(() => ({ server: { trustProxy: 'loopback' } }));
const developer = useFundedDeveloper(stack);
let inputs: Server;
let inputsUrl: string;
let hooks: Receiver;

beforeAll(async () => {
  const png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#118844' } })
    .png()
    .toBuffer();
  inputs = createServer((req, res) => {
    if (req.url === '/input.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else res.writeHead(404).end();
  });
  inputsUrl = (await listenLocally(inputs)).url;
  // One receiver, a path per target; /down answers 500 every time.
  hooks = await startReceiver(({ path }) => ({ status: path.startsWith('/down') ? 500 : 200 }));
});
afterAll(async () => {
  inputs?.close();
  await hooks?.close();
});

const base = () => `http://127.0.0.1:${hooks.port}`;
const deliveriesTo = (path: string) => hooks.received.filter((delivery) => delivery.path === path);
/** An upscale of the served input whose task webhook is `path` on the receiver. */
const upscaleNotifying = (path: string) => ({
  type: 'upscale',
  model: 'local/lanczos',
  image_url: `${inputsUrl}/input.png`,
  webhook_url: `${base()}${path}`,
});

describe('webhooks end to end', () => {
  it.each([
    ['completed', '/a/agent', '/a/task', () => upscaleNotifying('/a/task')],
    // The `input` layout names the task's webhook `webhook`.
    [
      'failed',
      '/b/agent',
      '/b/task',
      () => ({ model: 'local/lanczos', input: { image_url: `${inputsUrl}/missing.png` }, webhook: `${base()}/b/task` }),
    ],
  ])(
    "a %s generation is delivered to the task's webhook and the agent's, signed with the agent's secret",
    async (status, agentPath, taskPath, body) => {
      const agent = await registerAgent(stack, { body: { webhook_url: `${base()}${agentPath}` } });
      const task = await generateAndWait(stack, { key: agent.api_key, body: body() });
      expect(task.status).toBe(status);

      await expect
        .poll(() => deliveriesTo(agentPath).length + deliveriesTo(taskPath).length, { timeout: 15_000 })
        .toBe(2);
      const expected = {
        event: `generation.${status}`,
        data: (await call(stack, 'GET', `/generations/${task.id}`, { key: agent.api_key })).body,
      };
      expect(expected.data).toEqual(task);
      for (const delivery of [...deliveriesTo(agentPath), ...deliveriesTo(taskPath)]) {
        expect(verifyDelivery(agent.webhook_secret!, delivery)).toEqual(expected);
        expect(delivery.headers['webhook-id']).toBe(
          webhookMessageId(task.id, `generation.${status}` as 'generation.completed'),
        );
      }
      // What a forger or a replayer would send fails the same verification.
      const [sample] = deliveriesTo(agentPath);
      expect(() =>
        verifyDelivery(agent.webhook_secret!, { ...sample!, body: sample!.body.replace(`"${status}"`, '"queued"') }),
      ).toThrow(/No matching signature/);
      expect(() =>
        verifyDelivery(agent.webhook_secret!, {
          ...sample!,
          headers: { ...sample!.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 600) },
        }),
      ).toThrow(/too old/);
      if (status === 'completed')
        expect(expected.data.outputs).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/files\//)]);

      await expect
        .poll(() => stack.database.prisma.webhookDelivery.count({ where: { taskId: task.id } }), { timeout: 10_000 })
        .toBe(2);
      const log = await stack.database.prisma.webhookDelivery.findMany({
        where: { taskId: task.id },
        orderBy: { url: 'asc' },
      });
      expect(log.map((row) => [row.url, row.attempt, row.statusCode, row.event, row.accountId])).toEqual(
        [
          [`${base()}${agentPath}`, 1, 200, `generation.${status}`, agent.agent_id],
          [`${base()}${taskPath}`, 1, 200, `generation.${status}`, agent.agent_id],
        ].sort(),
      );
    },
  );

  it("webhook_events filters the task's own webhook (not the account's): `completed` takes both final events", async () => {
    const agent = await registerAgent(stack, { body: { webhook_url: `${base()}/f/agent` } });
    // `start` only: this gateway sends a task no start webhook, so its own URL gets nothing; the agent's gets it all.
    const quiet = await generateAndWait(stack, {
      key: agent.api_key,
      body: { ...upscaleNotifying('/f/start-only'), webhook_events: ['start'] },
    });
    expect(quiet.status).toBe('completed');
    // `completed` (in the input layout, beside `webhook`) selects generation.failed too.
    const failing = await generateAndWait(stack, {
      key: agent.api_key,
      body: {
        model: 'local/lanczos',
        input: { image_url: `${inputsUrl}/missing.png` },
        webhook: `${base()}/f/completed`,
        webhook_events: ['completed', 'logs'],
      },
    });
    expect(failing.status).toBe('failed');
    await expect.poll(() => deliveriesTo('/f/agent').length, { timeout: 15_000 }).toBe(2);
    await expect.poll(() => deliveriesTo('/f/completed').length, { timeout: 15_000 }).toBe(1);
    expect(verifyDelivery(agent.webhook_secret!, deliveriesTo('/f/completed')[0]!)).toEqual({
      event: 'generation.failed',
      data: failing,
    });
    // The filtered task's message went to the agent's URL alone: no delivery to its own was ever started.
    const targets = async () =>
      (await stack.database.prisma.webhookDelivery.findMany({ where: { taskId: quiet.id } })).map((row) => row.url);
    await expect.poll(targets, { timeout: 10_000 }).toEqual([`${base()}/f/agent`]);
    expect(deliveriesTo('/f/start-only')).toEqual([]);
  });

  it.each([
    [['done'], 'webhook_events'],
    [[], 'webhook_events'],
    ['completed', 'webhook_events'],
  ])('webhook_events %j is refused with 400 naming the field', async (webhookEvents, field) => {
    const refused = await call(stack, 'POST', '/generations', {
      key: developer.key,
      body: { ...upscaleNotifying('/never'), webhook_events: webhookEvents },
    });
    expect(refused).toMatchObject({ status: 400, body: { error: 'validation_error' } });
    expect(refused.body.message).toContain(field);
  });

  it("a developer's task is signed with the secret from GET /account/webhook-secret", async () => {
    const secret = (await call(stack, 'GET', '/account/webhook-secret', { key: developer.key })).body.webhook_secret;
    const task = await generateAndWait(stack, {
      key: developer.key,
      body: upscaleNotifying('/dev'),
    });
    await expect.poll(() => deliveriesTo('/dev').length, { timeout: 15_000 }).toBe(1);
    expect(verifyDelivery(secret, deliveriesTo('/dev')[0]!)).toEqual({ event: 'generation.completed', data: task });
  });

  it('a failing receiver neither delays nor changes the task: the generation closes while delivery retries', async () => {
    const before = await developer.balance();
    const task = await generateAndWait(stack, {
      key: developer.key,
      body: upscaleNotifying('/down'),
    });
    expect(task).toMatchObject({ status: 'completed', cost: 0.0005 });
    expect(await developer.balance()).toBe(before - 500n);
    await expect
      .poll(async () => (await stack.env.client.workflow.getHandle(task.id).describe()).status.name, {
        timeout: 10_000,
      })
      .toBe('COMPLETED');
    const delivery = stack.env.client.workflow.getHandle(
      deliveryWorkflowId(webhookMessageId(task.id, 'generation.completed'), `${base()}/down`),
    );
    await expect.poll(() => deliveriesTo('/down').length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    expect((await delivery.describe()).status.name).toBe('RUNNING');
    await expect
      .poll(() => stack.database.prisma.webhookDelivery.count({ where: { taskId: task.id } }), { timeout: 10_000 })
      .toBe(1);
    const [first] = await stack.database.prisma.webhookDelivery.findMany({ where: { taskId: task.id } });
    expect(first).toMatchObject({ attempt: 1, statusCode: 500, error: 'HTTP 500', nextAttemptAt: expect.any(Date) });
    await delivery.terminate('test over');
  });
});

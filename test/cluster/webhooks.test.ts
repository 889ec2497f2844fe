// Webhooks on the cluster: tasks admitted by either api process and run by either worker each send their final
// event once to the task's webhook and once to the agent's, signed with the agent's secret (checked with the
// standardwebhooks library), and logged once per target; a developer's secret is the one the API hands out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credit } from '../../src/ledger/ledger.ts';
import { webhookMessageId } from '../../src/webhooks/messages.ts';
import { call, generateAndWait, registerAgent } from '../helpers/http.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { type Receiver, startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';
import { useClusterDeveloper, useSharedCluster } from './shared-cluster.ts';

const inputs = usePngInputServer();
const cluster = useSharedCluster();
const developer = useClusterDeveloper(cluster);
let hooks: Receiver;
beforeAll(async () => {
  hooks = await startReceiver();
});
afterAll(() => hooks?.close());

const hookUrl = (path: string) => `http://127.0.0.1:${hooks.port}${path}`;
const deliveriesTo = (path: string) => hooks.received.filter((delivery) => delivery.path === path);

describe('webhooks on the cluster', () => {
  it("ten tasks, each delivered once to its own webhook and once to the agent's, signed", async () => {
    const agent = await registerAgent(cluster, { body: { webhook_url: hookUrl('/agent') } });
    // Not a trial credit: the shared cluster's daily trials may be spent by the other files' registrations.
    await credit(cluster.prisma, {
      accountId: agent.agent_id,
      amount: 1_000_000n,
      kind: 'adjustment',
      idempotencyKey: `topup:${agent.agent_id}`,
    });
    const tasks = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        generateAndWait(cluster, {
          key: agent.api_key,
          timeoutMs: 120_000,
          body: {
            type: index % 3 === 0 ? 'text-to-audio' : 'upscale',
            model: index % 3 === 0 ? 'local/espeak' : 'local/lanczos',
            ...(index % 3 === 0 ? { prompt: `Webhook ${index}.` } : { image_url: `${inputs.url()}/photo.png` }),
            webhook_url: hookUrl(`/task/${index}`),
          },
        }),
      ),
    );
    for (const task of tasks) expect(task.status).toBe('completed');

    await expect.poll(() => hooks.received.length, { timeout: 30_000 }).toBe(20);
    for (const [index, task] of tasks.entries()) {
      const messageId = webhookMessageId(task.id, 'generation.completed');
      const toAgent = deliveriesTo('/agent').filter((delivery) => delivery.headers['webhook-id'] === messageId);
      const toTask = deliveriesTo(`/task/${index}`);
      expect([toAgent.length, toTask.length]).toEqual([1, 1]);
      const expected = {
        event: 'generation.completed',
        data: (await call(cluster, 'GET', `/generations/${task.id}`, { key: agent.api_key })).body,
      };
      for (const delivery of [...toAgent, ...toTask]) {
        expect(delivery.headers['webhook-id']).toBe(messageId);
        expect(verifyDelivery(agent.webhook_secret!, delivery)).toEqual(expected);
      }
    }
    // Each attempt is logged after its receiver answered, so the last rows may trail the deliveries.
    const logged = () =>
      cluster.prisma.webhookDelivery.groupBy({
        by: ['taskId', 'url'],
        where: { accountId: agent.agent_id },
        _count: true,
      });
    await expect.poll(async () => (await logged()).length, { timeout: 30_000 }).toBe(20);
    for (const row of await logged()) expect(row._count).toBe(1);
  });

  it("a developer's task is signed with the secret from GET /account/webhook-secret", async () => {
    const { body } = await call(cluster, 'GET', '/account/webhook-secret', { key: developer.key });
    const task = await generateAndWait(cluster, {
      key: developer.key,
      timeoutMs: 60_000,
      body: { type: 'text-to-audio', model: 'local/espeak', prompt: 'Signed.', webhook_url: hookUrl('/developer') },
    });
    expect(task.status).toBe('completed');
    await expect.poll(() => deliveriesTo('/developer').length, { timeout: 30_000 }).toBe(1);
    expect(verifyDelivery(body.webhook_secret, deliveriesTo('/developer')[0]!)).toMatchObject({
      event: 'generation.completed',
      data: { id: task.id, status: 'completed' },
    });
  });
});

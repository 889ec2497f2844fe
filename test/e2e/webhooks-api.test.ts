// The account webhook and its delivery log through the public API (the console's Webhooks page reads them): a
// developer sets a webhook with PUT, a task's event reaches it, the log shows the message and the receiver's status,
// redelivery sends the same webhook-id and body again as a new attempt; another account sees none of it; a key without the
// `keys` scope may read the webhook but not the log nor change anything; pages follow next_cursor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, generateAndWait } from '../helpers/http.ts';
import { type Receiver, startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';

const gateway = useGateway();
const developer = useFundedDeveloper(gateway);
const other = useFundedDeveloper(gateway);
let hooks: Receiver;

beforeAll(async () => {
  // /gone answers 410 the first time (a receiver that is gone: no more attempts), 200 after.
  let goneOnce = false;
  hooks = await startReceiver(({ path }) => {
    if (path !== '/gone' || goneOnce) return { status: 200 };
    goneOnce = true;
    return { status: 410 };
  });
});
afterAll(() => hooks?.close());

const speech = (prompt: string) => ({ type: 'text-to-audio', model: 'local/espeak', prompt });
const log = (key: string, query = '') => call(gateway, 'GET', `/webhooks/deliveries${query}`, { key });

describe('account webhook and delivery log', () => {
  it('sets the webhook, logs each attempt with its status, and redelivers the same message', async () => {
    expect((await call(gateway, 'GET', '/webhooks', { key: developer.key })).body).toEqual({
      webhook_url: null,
      events: [],
      signature_header: 'webhook-signature',
      signature_algorithm: 'hmac-sha256',
    });
    const url = `http://127.0.0.1:${hooks.port}/gone`;
    const set = await call(gateway, 'PUT', '/webhooks', { key: developer.key, body: { webhook_url: url } });
    expect(set.status).toBe(200);
    expect(set.body.webhook_url).toBe(url);
    expect((await call(gateway, 'GET', '/webhooks', { key: developer.key })).body.webhook_url).toBe(url);

    const task = await generateAndWait(gateway, { key: developer.key, body: speech('Logged.') });
    await expect.poll(() => hooks.received.filter((each) => each.path === '/gone').length).toBeGreaterThan(0);
    const { webhook_secret: secret } = (await call(gateway, 'GET', '/account/webhook-secret', { key: developer.key }))
      .body;
    const first = hooks.received.find((each) => each.path === '/gone')!;
    expect(verifyDelivery(secret, first).data.id).toBe(task.id);

    const logged = await expect
      .poll(async () => (await log(developer.key, `?task_id=${task.id}`)).body.messages[0]?.targets[0]?.attempts)
      .toHaveLength(1)
      .then(async () => (await log(developer.key, `?task_id=${task.id}`)).body.messages[0]);
    expect(logged).toMatchObject({ id: first.headers['webhook-id'], event: 'generation.completed', task_id: task.id });
    expect(logged.targets[0]).toMatchObject({ url, state: 'gone', attempts: [{ attempt: 1, status_code: 410 }] });

    // Sent again once its schedule has ended (while it runs, redelivery answers 409): the same webhook-id and body,
    // a second attempt in the log, answered 200 this time.
    // (Its first attempt was the task's own step: the schedule ended with the task's workflow.)
    await gateway.env.client.workflow.getHandle(task.id).result();
    const again = await call(gateway, 'POST', `/webhooks/deliveries/${logged.id}/redeliver`, { key: developer.key });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ id: logged.id, targets: [{ url, redelivery: 'started', first_attempt: 2 }] });
    await expect.poll(() => hooks.received.filter((each) => each.path === '/gone').length).toBe(2);
    const resent = hooks.received.filter((each) => each.path === '/gone')[1]!;
    expect(resent.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(resent.body).toBe(first.body);
    await expect
      .poll(async () => (await log(developer.key, `?task_id=${task.id}`)).body.messages[0].targets[0])
      .toMatchObject({ state: 'delivered', attempts: [{ status_code: 410 }, { attempt: 2, status_code: 200 }] });

    // Someone else's message is not found, and their log is empty.
    const elsewhere = await call(gateway, 'POST', `/webhooks/deliveries/${logged.id}/redeliver`, { key: other.key });
    expect(elsewhere.status).toBe(404);
    expect((await log(other.key)).body).toEqual({ messages: [], next_cursor: null });
  });

  it('pages the log newest first with next_cursor, and refuses a garbled cursor naming it', async () => {
    await call(gateway, 'PUT', '/webhooks', {
      key: developer.key,
      body: { webhook_url: `http://127.0.0.1:${hooks.port}/ok` },
    });
    for (const prompt of ['One.', 'Two.', 'Three.'])
      await generateAndWait(gateway, { key: developer.key, body: speech(prompt) });
    await expect
      .poll(async () => (await log(developer.key, '?limit=100')).body.messages.length)
      .toBeGreaterThanOrEqual(4);
    const all = (await log(developer.key, '?limit=100')).body.messages.map((message: { id: string }) => message.id);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await log(developer.key, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...page.body.messages.map((message: { id: string }) => message.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all);
    const garbled = await log(developer.key, '?cursor=nonsense');
    expect(garbled.status).toBe(400);
    expect(garbled.body.message).toMatch(/cursor/);
  });

  it("sends the account's webhook only the events it names; absent, every event", async () => {
    const filtered = `http://127.0.0.1:${hooks.port}/filtered`;
    const own = `http://127.0.0.1:${hooks.port}/own`;
    const set = await call(gateway, 'PUT', '/webhooks', {
      key: other.key,
      body: { webhook_url: filtered, events: ['generation.failed', 'deposit.credited', 'generation.failed'] },
    });
    expect(set.body).toMatchObject({ webhook_url: filtered, events: ['generation.failed', 'deposit.credited'] });
    // A completed task's event goes to the task's own webhook, not to the account's, which did not ask for it.
    const task = await generateAndWait(gateway, { key: other.key, body: { ...speech('Filtered.'), webhook_url: own } });
    await expect.poll(() => hooks.received.filter((each) => each.path === '/own').length).toBe(1);
    // The log shows the attempt once it is written, just after the receiver answered.
    await expect
      .poll(async () => (await log(other.key, `?task_id=${task.id}`)).body.messages[0]?.targets)
      .toEqual([expect.objectContaining({ url: own, state: 'delivered' })]);
    expect(hooks.received.filter((each) => each.path === '/filtered')).toEqual([]);

    const unknown = await call(gateway, 'PUT', '/webhooks', {
      key: other.key,
      body: { webhook_url: filtered, events: ['generation.started'] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/events\.0/);
    // Without `events`, every event again.
    const every = await call(gateway, 'PUT', '/webhooks', { key: other.key, body: { webhook_url: filtered } });
    expect(every.body.events).toEqual([]);
    const next = await generateAndWait(gateway, { key: other.key, body: speech('Every event.') });
    await expect.poll(() => hooks.received.filter((each) => each.path === '/filtered').length).toBe(1);
    expect(JSON.parse(hooks.received.find((each) => each.path === '/filtered')!.body).data.id).toBe(next.id);
    await call(gateway, 'PUT', '/webhooks', { key: other.key, body: { webhook_url: null } });
  });

  it('lets a read-only key read the webhook, not the log, and change nothing', async () => {
    const reader = await call(gateway, 'POST', '/keys', {
      key: developer.key,
      body: { name: 'reader', scopes: ['read'] },
    });
    const key = reader.body.api_key;
    expect((await call(gateway, 'GET', '/webhooks', { key })).status).toBe(200);
    for (const [method, path, body] of [
      ['PUT', '/webhooks', { webhook_url: null }],
      ['GET', '/webhooks/deliveries', undefined],
      ['POST', '/webhooks/deliveries/msg_0000000000000000000000/redeliver', undefined],
    ] as const) {
      const refused = await call(gateway, method, path, { key, body });
      expect(refused.status, path).toBe(403);
      expect(refused.body).toMatchObject({ error: 'scope_required', scope: 'keys' });
    }
    const removed = await call(gateway, 'PUT', '/webhooks', { key: developer.key, body: { webhook_url: null } });
    expect(removed.body.webhook_url).toBeNull();
  });
});

// One delivery attempt against a real receiver: Standard Webhooks signatures checked with the library's own
// verify, how each kind of answer is classified, redirects not followed, and the private-network guard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../src/domain/ids.ts';
import { parseRetryAfter } from '../../src/net/retry-after.ts';
import { sendWebhook, signatureHeaders, type WebhookRequest } from '../../src/webhooks/send.ts';
import { freePort } from '../../harness/ports.ts';
import { type Answer, type Receiver, startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';

const secret = newWebhookSecret();
const body = JSON.stringify({
  event: 'generation.completed',
  data: { id: 'gen_1', status: 'completed', outputs: ['https://files.example/a.png'] },
});
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver(({ path }): Answer => {
    const [, code, extra] = /^\/status\/(\d+)(?:\/(.*))?$/.exec(path) ?? [];
    if (!code) return { status: 200 };
    const status = Number(code);
    if (status >= 300 && status < 400) return { status, headers: { location: '/landed' } };
    if (status === 429 || status === 503)
      return { status, headers: { 'retry-after': decodeURIComponent(extra ?? '') } };
    return { status };
  });
});
afterAll(() => receiver?.close());

const request = (path: string, overrides: Partial<WebhookRequest> = {}): WebhookRequest => ({
  url: `http://127.0.0.1:${receiver.port}${path}`,
  messageId: 'msg_test1',
  body,
  secret,
  allowPrivate: true,
  ...overrides,
});
const hits = (path: string) => receiver.received.filter((delivery) => delivery.path === path).length;

describe('sendWebhook', () => {
  it('POSTs the body with Standard Webhooks headers that the library verifies with the account secret', async () => {
    const result = await sendWebhook(request('/signed'));
    expect(result).toMatchObject({
      outcome: 'delivered',
      statusCode: 200,
      error: null,
      durationMs: expect.any(Number),
    });
    const delivery = receiver.received.find((candidate) => candidate.path === '/signed')!;
    expect(delivery.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'msg_test1',
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
    });
    expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(delivery.body).toBe(body);
    expect(verifyDelivery(secret, delivery)).toEqual(JSON.parse(body));
  });

  it("a tampered body, an old timestamp or another secret fails the library's verification", async () => {
    await sendWebhook(request('/tamper'));
    const delivery = receiver.received.find((candidate) => candidate.path === '/tamper')!;
    expect(() => verifyDelivery(secret, { ...delivery, body: delivery.body.replace('completed', 'failed') })).toThrow(
      /No matching signature/,
    );
    const anHourAgo = String(Math.floor(Date.now() / 1000) - 3600);
    expect(() =>
      verifyDelivery(secret, { ...delivery, headers: { ...delivery.headers, 'webhook-timestamp': anHourAgo } }),
    ).toThrow(/too old/);
    // Even correctly signed, a message signed ten minutes ago is refused (the library's tolerance is five).
    const old = signatureHeaders('msg_test1', secret, body, new Date(Date.now() - 10 * 60_000));
    expect(() => verifyDelivery(secret, { ...delivery, headers: old })).toThrow(/too old/);
    expect(() => verifyDelivery(newWebhookSecret(), delivery)).toThrow(/No matching signature/);
  });

  it.each<[string, object]>([
    ['/status/204', { outcome: 'delivered', statusCode: 204 }],
    ['/status/410', { outcome: 'gone', statusCode: 410 }],
    ['/status/400', { outcome: 'failed', statusCode: 400, error: 'HTTP 400' }],
    ['/status/500', { outcome: 'failed', statusCode: 500, error: 'HTTP 500', retryAfterMs: null }],
    ['/status/429/120', { outcome: 'failed', statusCode: 429, retryAfterMs: 120_000 }],
  ])('%s → %o', async (path, expected) => {
    expect(await sendWebhook(request(path))).toMatchObject(expected);
  });

  it.each([301, 302, 307, 308])('a %i redirect is a failure and is not followed', async (status) => {
    const before = hits('/landed');
    const result = await sendWebhook(request(`/status/${status}`));
    expect(result).toMatchObject({
      outcome: 'failed',
      statusCode: status,
      error: `HTTP ${status} redirect to /landed not followed`,
    });
    expect(hits('/landed')).toBe(before);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 90_000).toUTCString();
    const result = await sendWebhook(request(`/status/503/${encodeURIComponent(at)}`));
    expect(result.retryAfterMs).toBeGreaterThan(85_000);
    expect(result.retryAfterMs).toBeLessThanOrEqual(90_000);
  });

  it('a receiver that is down or too slow is a failure to retry', async () => {
    expect(await sendWebhook(request('/', { url: `http://127.0.0.1:${await freePort()}/hook` }))).toMatchObject({
      outcome: 'failed',
      statusCode: null,
      error: 'connection failed: ECONNREFUSED',
    });
    const slow = await startReceiver(() => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 1_000)));
    try {
      expect(await sendWebhook(request('/', { url: slow.url, timeoutMs: 200 }))).toMatchObject({
        outcome: 'failed',
        error: 'timed out after 0.2 s',
      });
    } finally {
      await slow.close();
    }
  });

  it('refuses URLs that resolve to private addresses unless allowed, without connecting', async () => {
    const before = receiver.received.length;
    for (const host of ['localhost', '127.0.0.1', '[::ffff:127.0.0.1]']) {
      const result = await sendWebhook(
        request('/', { url: `http://${host}:${receiver.port}/private`, allowPrivate: false }),
      );
      expect(result, host).toMatchObject({
        outcome: 'refused',
        statusCode: null,
        error: expect.stringMatching(/^\S+ is a private address; set ALLOW_PRIVATE_WEBHOOK_URLS=true to allow it$/),
      });
    }
    expect(
      await sendWebhook(request('/', { url: 'http://169.254.169.254/latest/meta-data/', allowPrivate: false })),
    ).toMatchObject({ outcome: 'refused' });
    expect(receiver.received.length).toBe(before);
    expect(
      await sendWebhook(request('/', { url: `http://localhost:${receiver.port}/private`, allowPrivate: true })),
    ).toMatchObject({ outcome: 'delivered' });
  });

  it('refuses what is not an http(s) URL', async () => {
    expect(await sendWebhook(request('/', { url: 'ftp://example.com/hook' }))).toMatchObject({
      outcome: 'refused',
      error: 'not an http(s) URL',
    });
  });
});

describe('parseRetryAfter', () => {
  it.each<[string | null, number | null]>([
    ['30', 30_000],
    [' 0 ', 0],
    [null, null],
    ['soon', null],
    ['Thu, 01 Jan 1970 00:00:00 GMT', 0],
  ])('%j → %j', (value, expected) => {
    expect(parseRetryAfter(value, 1_000_000)).toBe(expected);
  });
});

// Calls without a key (x402) count against the caller's network as registration's trial credits do: an IPv4 address
// or an IPv6 /48, so one holder of a /48 cannot spread its calls over 65,536 /64s (issue 35, point 8). A wallet's
// sign-in and a payment probe count even when their body is not JSON or not valid (issue 55, point 19).
import { describe, expect, it } from 'vitest';
import type { Tier } from '../../src/domain/values.ts';
import { unreadChains, useAppWithDatabase } from '../helpers/app.ts';
import { call, freshClientAddress } from '../helpers/http.ts';

const twoPerWindow: Record<Tier, number> = { free: 2, starter: 2, pro: 2, enterprise: 2 };
const paid = useAppWithDatabase({
  config: {
    server: { trustProxy: 'loopback' },
    x402: { enabled: true },
    ...unreadChains,
    // One window for the whole run (windows are aligned to multiples of their length): no rollover mid-test.
    rateLimits: { windowSeconds: 1_000_000_000, admissions: twoPerWindow, reads: twoPerWindow },
  },
});
const upscale = { type: 'upscale', model: 'local/lanczos', image_url: 'https://inputs.example/photo.png' };

describe('calls without a key', () => {
  it('from many IPv6 addresses of one /48 share one bucket; another /48 has its own', async () => {
    const site = ['2001:db8:35:1::1', '2001:db8:35:2::7', '2001:db8:35:ffff:1234::1'];
    const answers = [];
    for (const from of site) answers.push(await call(paid, 'POST', '/generations', { body: upscale, from }));
    expect(answers.map(({ status }) => status)).toEqual([402, 402, 429]);
    expect(answers[2]!.body).toEqual({
      error: 'rate_limited',
      message: expect.stringMatching(/^Rate limit reached: at most 2 generations every 1000000000 seconds/),
    });
    const elsewhere = await call(paid, 'POST', '/generations', { body: upscale, from: '2001:db8:36:1::1' });
    expect(elsewhere.status).toBe(402);
  });
});

/** A POST without a key whose body is `body` as sent (malformed JSON stays malformed), from `from`. */
async function postRaw(path: string, body: string, from: string) {
  const response = await fetch(`${paid.app.url}/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body,
  });
  return { status: response.status, body: (await response.json()) as { error: string; message: string } };
}

describe('malformed calls without a key are counted too', () => {
  it.each([
    ['/wallets/sign-in', '{"not json', 400],
    ['/agents/sign-in', '{"not json', 400],
    ['/agents/sign-in', '{"agent_id": 5}', 400],
    // A payment probe: answered the 402 of an example request, whose pricing is work too.
    ['/generations', '{"not json', 402],
    ['/generations', '{"type": "upscale"}', 402],
  ])('POST %s with %s: refused %i twice, then 429 rate_limited', async (path, body, refusal) => {
    const from = freshClientAddress();
    const answers = [];
    for (let index = 0; index < 3; index += 1) answers.push(await postRaw(path, body, from));
    expect(answers.map(({ status }) => status)).toEqual([refusal, refusal, 429]);
    expect(answers[2]!.body).toEqual({
      error: 'rate_limited',
      message: expect.stringMatching(
        /^Rate limit reached: at most 2 generations every 1000000000 seconds for this address/,
      ),
    });
  });
});

// Calls without a key (x402) count against the caller's network as registration's trial credits do: an IPv4 address
// or an IPv6 /48, so one holder of a /48 cannot spread its calls over 65,536 /64s (issue 35, point 8).
import { describe, expect, it } from 'vitest';
import type { Tier } from '../../src/domain/values.ts';
import { unreadChains, useAppWithDatabase } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';

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

import type { Request } from 'express';
import { expect, it } from 'vitest';
import { clientAddress } from '../../src/api/client-address.ts';

const from = (ip: string) => clientAddress({ ip, socket: {} } as unknown as Request);

it.each([
  ['203.0.113.7', '203.0.113.7'],
  ['::ffff:203.0.113.7', '203.0.113.7'],
  ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
  ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
  ['2001:0DB8:0001:0002::ffff', '2001:db8:1:2::/64'],
  ['2001:db8::1', '2001:db8:0:0::/64'],
  ['::1', '0:0:0:0::/64'],
])('%s counts as %s', (ip, expected) => {
  expect(from(ip)).toBe(expected);
});

import type { Request } from 'express';
import { expect, it } from 'vitest';
import { callerAddress, clientAddress, trialNetwork } from '../../src/api/client-address.ts';

const request = (ip: string) => ({ ip, socket: {} }) as unknown as Request;

it.each([
  ['203.0.113.7', '203.0.113.7', '203.0.113.7'],
  ['::ffff:203.0.113.7', '203.0.113.7', '203.0.113.7'],
  ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64', '2001:db8:1::/48'],
  ['2001:db8:1:2::1', '2001:db8:1:2::/64', '2001:db8:1::/48'],
  ['2001:0DB8:0001:0002::ffff', '2001:db8:1:2::/64', '2001:db8:1::/48'],
  ['2001:db8:1:ffff::1', '2001:db8:1:ffff::/64', '2001:db8:1::/48'],
  ['2001:db8::1', '2001:db8:0:0::/64', '2001:db8:0::/48'],
  ['::1', '0:0:0:0::/64', '0:0:0::/48'],
])('%s counts as %s for the registration cap and as %s for the trial', (ip, address, network) => {
  expect(clientAddress(callerAddress(request(ip)))).toBe(address);
  expect(trialNetwork(callerAddress(request(ip)))).toBe(network);
});

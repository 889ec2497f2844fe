// The private-network guard shared by input downloads and webhooks: which addresses count as private.
import { describe, expect, it } from 'vitest';
import { isPrivateAddress, outboundDispatcher, PrivateAddressError } from '../../src/net/private-address.ts';

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.0.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['::127.0.0.1', true],
    ['::ffff:10.0.0.1', true],
    ['64:ff9b::7f00:1', true],
    ['2002:7f00:1::', true],
    ['fec0::1', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['93.184.216.34', false],
    ['8.8.8.8', false],
    ['2606:4700:4700::1111', false],
    ['172.32.0.1', false],
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

describe('outboundDispatcher', () => {
  it.each([
    'http://127.0.0.1/',
    'http://[::1]:8080/',
    'https://169.254.169.254/latest/meta-data',
    'http://[fd00:ec2::254]/',
  ])('refuses the literal %s', (url) => {
    expect(() => outboundDispatcher(new URL(url), false)).toThrow(PrivateAddressError);
  });

  it('lets a public literal, any name, and (when allowed) a private literal through to the connection', () => {
    expect(() => outboundDispatcher(new URL('http://93.184.216.34/'), false)).not.toThrow();
    expect(() => outboundDispatcher(new URL('http://localhost/'), false)).not.toThrow(); // names are checked at connection time
    expect(() => outboundDispatcher(new URL('http://127.0.0.1/'), true)).not.toThrow();
  });
});

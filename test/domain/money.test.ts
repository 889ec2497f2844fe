import { describe, expect, it } from 'vitest';
import { formatUsd, parseUsd, usdNumber } from '../../src/domain/money.ts';

describe('formatUsd', () => {
  it.each([
    [0n, '0.00'],
    [1_000_000n, '1.00'],
    [35_000n, '0.035'],
    [12_500_000n, '12.50'],
    [1n, '0.000001'],
    [10_000n, '0.01'],
    [123_456_789n, '123.456789'],
    [-2_500_000n, '-2.50'],
    [9_007_199_254_740_993n, '9007199254.740993'],
  ])('%s micro-USD → "%s"', (micros, text) => {
    expect(formatUsd(micros)).toBe(text);
  });
});

describe('parseUsd', () => {
  it.each([
    ['1', 1_000_000n],
    ['1.00', 1_000_000n],
    ['0.035', 35_000n],
    ['12.5', 12_500_000n],
    ['0.000001', 1n],
    [' 7.25 ', 7_250_000n],
  ])('"%s" → %s micro-USD', (text, micros) => {
    expect(parseUsd(text)).toBe(micros);
  });

  it.each(['', '-1', '1e3', '0.0000001', '1.', '.5', 'abc', '1,00', 'NaN'])('refuses "%s"', (text) => {
    expect(() => parseUsd(text)).toThrow(RangeError);
  });

  it('round-trips with formatUsd', () => {
    for (const micros of [0n, 1n, 999_999n, 1_000_001n, 45_000n]) expect(parseUsd(formatUsd(micros))).toBe(micros);
  });
});

it('usdNumber gives the edge number for cost fields', () => {
  expect(usdNumber(45_000n)).toBe(0.045);
  expect(usdNumber(1_000_000n)).toBe(1);
});

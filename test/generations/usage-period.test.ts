// The period a usage report covers: days whole, timestamps rounded outward to the hours the aggregates are kept by.
import { describe, expect, it } from 'vitest';
import { usagePeriod } from '../../src/generations/usage-period.ts';

const iso = (period: { from: Date; to: Date }) => [period.from.toISOString(), period.to.toISOString()];

describe('usagePeriod', () => {
  it('takes days whole: from its midnight, to the midnight after the last day', () => {
    expect(iso(usagePeriod({ from: '2026-11-01', to: '2026-11-30' }))).toEqual([
      '2026-11-01T00:00:00.000Z',
      '2026-12-01T00:00:00.000Z',
    ]);
  });

  it('rounds timestamps outward to whole hours, in UTC whatever their offset', () => {
    expect(iso(usagePeriod({ from: '2026-11-27T10:59:59+02:00', to: '2026-11-27T12:00:00.001Z' }))).toEqual([
      '2026-11-27T08:00:00.000Z',
      '2026-11-27T13:00:00.000Z',
    ]);
    expect(iso(usagePeriod({ from: '2026-11-27T10:00:00Z', to: '2026-11-27T11:00:00Z' }))).toEqual([
      '2026-11-27T10:00:00.000Z',
      '2026-11-27T11:00:00.000Z',
    ]);
  });

  it('defaults to the 30 days up to the end of the current hour', () => {
    const now = new Date('2026-11-28T13:05:00Z');
    expect(iso(usagePeriod({}, now))).toEqual(['2026-10-30T00:00:00.000Z', '2026-11-28T14:00:00.000Z']);
  });
});

// The Prefer header (RFC 7240) as POST /generations and GET /generations/{id} read it: only `wait` counts.
import { describe, expect, it } from 'vitest';
import { preferredWaitSeconds } from '../../src/api/prefer.ts';

describe('preferredWaitSeconds', () => {
  it.each([
    ['wait=10', 10],
    ['WAIT=10', 10],
    ['wait = 10', 10],
    ['wait="10"', 10],
    ['respond-async, wait=5', 5],
    ['respond-async,wait=5;foo=bar', 5],
    ['handling=lenient, wait=60', 60],
    ['wait=61', 60],
    ['wait=3600', 60],
    ['wait=1, wait=30', 1],
  ])('%s → %s seconds', (header, seconds) => {
    expect(preferredWaitSeconds(header)).toBe(seconds);
  });

  it.each([undefined, '', 'respond-async', 'wait', 'wait=', 'wait=0', 'wait=-1', 'wait=1.5', 'wait=ten', 'wait=1e3'])(
    '%s → no wait',
    (header) => {
      expect(preferredWaitSeconds(header)).toBeUndefined();
    },
  );
});

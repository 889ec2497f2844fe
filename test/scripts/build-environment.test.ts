// The build (tsc, the workflow bundle) runs without the heap cap an operator sets for the service in NODE_OPTIONS:
// under a 256 MB cap, tsc aborts and `npm start` after a change could not start.
import { describe, expect, it } from 'vitest';
import { buildEnvironment } from '../../scripts/build.mjs';

describe("the build's environment", () => {
  it('drops a heap cap from NODE_OPTIONS and keeps the other options and variables', () => {
    const env = buildEnvironment({
      NODE_OPTIONS: '--enable-source-maps --max-old-space-size=256 --max-semi-space-size=8',
      PATH: '/usr/bin',
    });
    expect(env).toEqual({ NODE_OPTIONS: '--enable-source-maps --max-semi-space-size=8', PATH: '/usr/bin' });
    expect(buildEnvironment({ NODE_OPTIONS: '--max-old-space-size 512' }).NODE_OPTIONS).toBe('');
  });

  it('leaves an environment without NODE_OPTIONS as it is, bar an empty NODE_OPTIONS', () => {
    expect(buildEnvironment({ PATH: '/usr/bin' })).toEqual({ PATH: '/usr/bin', NODE_OPTIONS: '' });
  });
});

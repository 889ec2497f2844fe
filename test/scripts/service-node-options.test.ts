// `npm start` and `npm run cluster` cap the service's heap by default (V8 otherwise lets garbage grow with the
// machine's memory) and preload the workflow thread's trim; an operator's own cap in NODE_OPTIONS wins, and their
// other options are kept.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultHeapCapMb, serviceNodeOptions, workflowThreadPreload } from '../../scripts/service-node-options.mjs';

const root = join(import.meta.dirname, '..', '..');

describe('the service heap cap', () => {
  it('adds the cap unless NODE_OPTIONS name one, and the workflow thread preload, keeping the rest', () => {
    const preload = `--require ${JSON.stringify(workflowThreadPreload)}`;
    expect(serviceNodeOptions(undefined)).toBe(`--max-old-space-size=${defaultHeapCapMb} ${preload}`);
    expect(serviceNodeOptions('--enable-source-maps')).toBe(
      `--enable-source-maps --max-old-space-size=${defaultHeapCapMb} ${preload}`,
    );
    expect(serviceNodeOptions('--max-old-space-size=1024')).toBe(`--max-old-space-size=1024 ${preload}`);
    // Given again (a cluster's process started by one that has them): nothing added twice.
    expect(serviceNodeOptions(serviceNodeOptions())).toBe(serviceNodeOptions());
  });

  it('reaches the service through the npm scripts, as the harness starts it', () => {
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
    for (const name of ['start', 'cluster'])
      expect(scripts[name]).toContain('NODE_OPTIONS="$(node scripts/service-node-options.mjs)"');
    const printed = execFileSync(
      'sh',
      [
        '-c',
        'NODE_OPTIONS="$(node scripts/service-node-options.mjs)" node -e "console.log(require(\'v8\').getHeapStatistics().heap_size_limit)"',
      ],
      {
        cwd: root,
        env: { ...process.env, NODE_OPTIONS: '' },
        encoding: 'utf8',
      },
    );
    // V8 adds its young generation to the old space's cap.
    expect(Number(printed) / 2 ** 20).toBeLessThan(defaultHeapCapMb * 1.5);
  });
});

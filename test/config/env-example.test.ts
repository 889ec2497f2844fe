import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { configKeys, loadConfig } from '../../src/config/config.ts';

it('.env.example documents every configuration variable, and its values are valid', () => {
  const text = readFileSync(join(import.meta.dirname, '..', '..', '.env.example'), 'utf8');
  const entries = Object.fromEntries(
    text
      .split('\n')
      .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
      .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
  expect(Object.keys(entries).sort()).toEqual([...configKeys].sort());
  expect(() => loadConfig(entries, [])).not.toThrow();
});

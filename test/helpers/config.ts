import { type Config, loadConfig } from '../../src/config/config.ts';

type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

/** Settings a test changes, by section: `{ x402: { enabled: true }, providers: { fal: { key: 'k' } } }`. */
export type ConfigOverrides = DeepPartial<Config>;

const isSection = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function merged(base: Record<string, unknown>, override: Record<string, unknown> = {}): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(base), ...Object.keys(override)])) {
    const [from, to] = [base[key], override[key]];
    if (isSection(from)) result[key] = merged(from, isSection(to) ? to : {});
    else result[key] = key in override ? to : from;
  }
  return result;
}

/** A copy of `config` (its sections copied, not shared) with the overrides applied key by key. */
export function mergeConfig(config: Config, ...overrides: ConfigOverrides[]): Config {
  return overrides.reduce<Record<string, unknown>>((result, override) => merged(result, override), config) as Config;
}

/**
 * The configuration of an empty test environment, with the overrides. x402 is off unless a test turns it on: its
 * default (on without a chain RPC URL, for npm start's local chain) would follow any test that adds a local chain.
 */
export const testConfig = (...overrides: ConfigOverrides[]): Config =>
  mergeConfig(loadConfig({ NODE_ENV: 'test', X402_ENABLED: 'false' }, []), ...overrides);

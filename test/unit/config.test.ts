import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('loadConfig', () => {
  it('gives the embedded defaults on an empty environment', () => {
    const config = loadConfig({}, []);
    expect(config).toMatchObject({
      GATEWAY_ROLE: 'all',
      PORT: 3000,
      DATA_DIR: '.data',
      TEMPORAL_UI_PORT: 8233,
      JSON_BODY_LIMIT: '1mb',
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.TEMPORAL_ADDRESS).toBeUndefined();
  });

  it('coerces numbers and treats empty strings as unset', () => {
    const config = loadConfig({ PORT: '8080', DATABASE_URL: '' }, []);
    expect(config.PORT).toBe(8080);
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL'],
    [{ TEMPORAL_ADDRESS: 'no-port' }, 'TEMPORAL_ADDRESS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ JSON_BODY_LIMIT: 'lots' }, 'JSON_BODY_LIMIT'],
    [{ GATEWAY_ROLE: 'both' }, 'GATEWAY_ROLE'],
    [{ PUBLIC_BASE_URL: 'ftp://example.com' }, 'PUBLIC_BASE_URL'],
  ])('rejects %o naming %s', (env, name) => {
    expect(() => loadConfig(env, [])).toThrow(ConfigError);
    expect(() => loadConfig(env, [])).toThrow(new RegExp(`${name}:`));
  });

  it('takes --role from the command line over GATEWAY_ROLE', () => {
    const env = { GATEWAY_ROLE: 'api', DATABASE_URL: 'postgresql://u:p@db:5432/g', TEMPORAL_ADDRESS: 'temporal:7233' };
    expect(loadConfig(env, ['--role', 'worker']).GATEWAY_ROLE).toBe('worker');
    expect(() => loadConfig(env, ['--role', 'nope'])).toThrow(/GATEWAY_ROLE/);
  });

  it('requires external infrastructure for a single role', () => {
    expect(() => loadConfig({ GATEWAY_ROLE: 'api' }, [])).toThrow(/DATABASE_URL: required when GATEWAY_ROLE is api/);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://db/g' }, ['--role', 'worker'])).toThrow(/TEMPORAL_ADDRESS/);
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, developmentKeyedTaskIdSecret, loadConfig, publicBaseUrl } from '../../src/config/config.ts';

describe('loadConfig', () => {
  it('gives the embedded defaults on an empty environment', () => {
    const config = loadConfig({}, []);
    expect(config).toMatchObject({
      server: { role: 'all', port: 3000, dataDir: '.data', jsonBodyLimit: '1mb' },
      temporal: { devServer: { uiPort: 8233 } },
    });
    expect(config.database.url).toBeUndefined();
    expect(config.temporal.address).toBeUndefined();
  });

  it.each([
    [{}, { retentionDays: 30, expiryIntervalSeconds: 3600 }],
    [{ OUTPUT_RETENTION_DAYS: '0' }, { retentionDays: 0, expiryIntervalSeconds: 3600 }],
    [
      { OUTPUT_RETENTION_DAYS: '3650', OUTPUT_EXPIRY_INTERVAL_SECONDS: '60' },
      { retentionDays: 3650, expiryIntervalSeconds: 60 },
    ],
  ])('reads the output retention from %o', (env, outputs) => {
    expect(loadConfig(env, []).outputs).toEqual({ ...outputs, taskIdSecret: developmentKeyedTaskIdSecret });
  });

  it('coerces numbers and treats empty strings as unset', () => {
    const config = loadConfig({ PORT: '8080', DATABASE_URL: '' }, []);
    expect(config.server.port).toBe(8080);
    expect(config.database.url).toBeUndefined();
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
    [{ OUTPUT_RETENTION_DAYS: '-1' }, 'OUTPUT_RETENTION_DAYS'],
    [{ OUTPUT_RETENTION_DAYS: '3651' }, 'OUTPUT_RETENTION_DAYS'],
    [{ OUTPUT_RETENTION_DAYS: '1.5' }, 'OUTPUT_RETENTION_DAYS'],
    [{ OUTPUT_RETENTION_DAYS: 'forever' }, 'OUTPUT_RETENTION_DAYS'],
    [{ OUTPUT_EXPIRY_INTERVAL_SECONDS: '0' }, 'OUTPUT_EXPIRY_INTERVAL_SECONDS'],
  ])('rejects %o naming %s', (env, name) => {
    expect(() => loadConfig(env, [])).toThrow(ConfigError);
    expect(() => loadConfig(env, [])).toThrow(new RegExp(`${name}:`));
  });

  it.each([
    ['60', { free: 60, starter: 60, pro: 60, enterprise: 60 }],
    [' enterprise=0, pro=600,starter=300,free=60', { free: 60, starter: 300, pro: 600, enterprise: 0 }],
  ])('reads a rate limit per tier from %j', (value, limits) => {
    expect(loadConfig({ RATE_LIMIT_ADMISSIONS: value }, []).rateLimits.admissions).toEqual(limits);
  });

  it.each(['free=60', 'free=1,starter=1,pro=1,gold=1', 'free=1,starter=1,pro=1,enterprise=1,', 'many', '-1'])(
    'refuses the rate limit %j naming the variable and the forms it takes',
    (value) => {
      expect(() => loadConfig({ RATE_LIMIT_READS: value }, [])).toThrow(
        'RATE_LIMIT_READS: expected a number, or free=<n>,starter=<n>,pro=<n>,enterprise=<n> (0: no limit)',
      );
    },
  );

  it('takes --role from the command line over GATEWAY_ROLE', () => {
    const env = { GATEWAY_ROLE: 'api', DATABASE_URL: 'postgresql://u:p@db:5432/g', TEMPORAL_ADDRESS: 'temporal:7233' };
    expect(loadConfig(env, ['--role', 'worker']).server.role).toBe('worker');
    expect(() => loadConfig(env, ['--role', 'nope'])).toThrow(/GATEWAY_ROLE/);
  });

  it('requires external infrastructure for a single role', () => {
    expect(() => loadConfig({ GATEWAY_ROLE: 'api' }, [])).toThrow(/DATABASE_URL: required when GATEWAY_ROLE is api/);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://db/g' }, ['--role', 'worker'])).toThrow(/TEMPORAL_ADDRESS/);
  });

  it('takes presigned links off by default, for 300 s when on, and only with the s3 driver', () => {
    const s3 = { STORAGE_DRIVER: 's3', S3_BUCKET: 'outputs' };
    expect(loadConfig(s3, []).storage).toMatchObject({ presignedUrls: false, presignedUrlSeconds: 300 });
    expect(
      loadConfig({ ...s3, STORAGE_PRESIGNED_URLS: 'true', STORAGE_PRESIGNED_URL_SECONDS: '604800' }, []).storage,
    ).toMatchObject({ presignedUrls: true, presignedUrlSeconds: 604_800 });
    expect(() => loadConfig({ STORAGE_PRESIGNED_URLS: 'true' }, [])).toThrow(
      'STORAGE_PRESIGNED_URLS: only with STORAGE_DRIVER=s3',
    );
  });

  it.each(['0', '604801', '1.5', 'soon'])(
    "refuses STORAGE_PRESIGNED_URL_SECONDS=%s (1 to 604800, S3's limit)",
    (value) => {
      expect(() => loadConfig({ STORAGE_PRESIGNED_URL_SECONDS: value }, [])).toThrow(/STORAGE_PRESIGNED_URL_SECONDS:/);
    },
  );

  it('takes x402 by default exactly where npm start runs its local chain (no chain RPC URL), as Base Sepolia (issue 25, point 6)', () => {
    expect(loadConfig({}, []).x402.enabled).toBe(true);
    expect(loadConfig({}, []).chains.local.chainId).toBe(84532);
    expect(loadConfig({ X402_ENABLED: 'false' }, []).x402.enabled).toBe(false);
    // A real chain configured (as production must), with keys of its own: off until asked for.
    const realChain = {
      POLYGON_RPC_URL: 'https://polygon.example',
      DEPOSIT_XPUB:
        'xpub6CUGRUonZSQ4TWtTMmzXdrXDtypWKiKrhko4egpiMZbpiaQL2jkwSB1icqYh2cfDfVxdx4df189oLKnC5fSwqPfgyP3hooxujYzAu3fDVmz',
      X402_PAY_TO: '0x00000000000000000000000000000000000F0402',
      X402_FACILITATOR_PRIVATE_KEY: `0x${'42'.repeat(32)}`,
      X402_TASK_ID_SECRET: 'x'.repeat(40),
      TASK_ID_SECRET: 'y'.repeat(40),
    };
    expect(loadConfig(realChain, []).x402.enabled).toBe(false);
    expect(loadConfig({ ...realChain, X402_ENABLED: 'true' }, []).x402.enabled).toBe(true);
  });

  it('refuses each x402 development default in production once x402 is on, one at a time', () => {
    const production = {
      NODE_ENV: 'production',
      BASE_RPC_URL: 'https://base.example',
      DEPOSIT_XPUB:
        'xpub6CUGRUonZSQ4TWtTMmzXdrXDtypWKiKrhko4egpiMZbpiaQL2jkwSB1icqYh2cfDfVxdx4df189oLKnC5fSwqPfgyP3hooxujYzAu3fDVmz',
      X402_ENABLED: 'true',
      TASK_ID_SECRET: 'y'.repeat(40),
    };
    expect(() => loadConfig(production, [])).toThrow(/X402_PAY_TO: the development address/);
    const payTo = { ...production, X402_PAY_TO: '0x00000000000000000000000000000000000F0402' };
    expect(() => loadConfig(payTo, [])).toThrow(/X402_FACILITATOR_PRIVATE_KEY: the development key/);
    const ownKey = { ...payTo, X402_FACILITATOR_PRIVATE_KEY: `0x${'42'.repeat(32)}` };
    expect(() => loadConfig(ownKey, [])).toThrow(/X402_TASK_ID_SECRET: the development secret/);
    expect(() => loadConfig({ ...ownKey, X402_TASK_ID_SECRET: 'short' }, [])).toThrow(/X402_TASK_ID_SECRET/);
    const ownSecrets = { ...ownKey, X402_TASK_ID_SECRET: 'x'.repeat(40), SIGNING_KEYS_SECRET: 'y'.repeat(40) };
    const located = { ...ownSecrets, PUBLIC_BASE_URL: 'https://gateway.example.com' };
    expect(() => loadConfig(located, [])).toThrow(/OAUTH_TOKEN_SECRET: required in production/);
    expect(() => loadConfig({ ...located, OAUTH_TOKEN_SECRET: 'short' }, [])).toThrow(/OAUTH_TOKEN_SECRET/);
    const config = loadConfig({ ...located, OAUTH_TOKEN_SECRET: 'o'.repeat(64) }, []);
    expect(config.oauth.tokenSecret).toBe('o'.repeat(64));
    expect(config).toMatchObject({ x402: { enabled: true, schemes: ['exact', 'upto'] } });
    expect(() => loadConfig({ X402_SCHEMES: 'exact,batch' }, [])).toThrow(/X402_SCHEMES/);
  });

  it('refuses production without PUBLIC_BASE_URL, naming it, since receipts and links would name localhost (issue 55, point 18 c)', () => {
    const production = {
      NODE_ENV: 'production',
      BASE_RPC_URL: 'https://base.example',
      DEPOSIT_XPUB:
        'xpub6CUGRUonZSQ4TWtTMmzXdrXDtypWKiKrhko4egpiMZbpiaQL2jkwSB1icqYh2cfDfVxdx4df189oLKnC5fSwqPfgyP3hooxujYzAu3fDVmz',
      SIGNING_KEYS_SECRET: 'y'.repeat(40),
      OAUTH_TOKEN_SECRET: 'o'.repeat(64),
      TASK_ID_SECRET: 't'.repeat(40),
    };
    expect(() => loadConfig(production, [])).toThrow(ConfigError);
    expect(() => loadConfig(production, [])).toThrow(
      /^Invalid configuration — PUBLIC_BASE_URL: required in production \(the address clients reach this server at/,
    );
    const published = loadConfig({ ...production, PUBLIC_BASE_URL: 'https://gateway.example.com/' }, []);
    expect(publicBaseUrl(published.server)).toBe('https://gateway.example.com');
    // Development keeps its default, and names localhost where no request says otherwise.
    expect(publicBaseUrl(loadConfig({ PORT: '3100' }, []).server)).toBe('http://localhost:3100');
  });
});

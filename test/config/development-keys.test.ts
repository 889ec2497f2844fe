// The published development keys are refused wherever a real chain is configured, not only under NODE_ENV=production:
// `npm start` or `npm run cluster` with a real RPC URL and no keys of one's own would let anyone sweep deposits and
// payments (issue 35, point 6). The local chain the runtime starts keeps them.
import { describe, expect, it } from 'vitest';
import { ConfigError, developmentKeyedTaskIdSecret, loadConfig } from '../../src/config/config.ts';

const realChain = { BASE_RPC_URL: 'https://mainnet.base.org' };
const ownKeys = {
  DEPOSIT_XPUB:
    'xpub6CUGRUonZSQ4TWtTMmzXdrXDtypWKiKrhko4egpiMZbpiaQL2jkwSB1icqYh2cfDfVxdx4df189oLKnC5fSwqPfgyP3hooxujYzAu3fDVmz',
  X402_PAY_TO: '0x00000000000000000000000000000000000F0402',
  X402_FACILITATOR_PRIVATE_KEY: `0x${'42'.repeat(32)}`,
  X402_TASK_ID_SECRET: 'x'.repeat(40),
  TASK_ID_SECRET: 'y'.repeat(40),
};
const x402Variables = ['X402_PAY_TO', 'X402_FACILITATOR_PRIVATE_KEY', 'X402_TASK_ID_SECRET'];

const startupError = (env: Record<string, string>) => {
  try {
    loadConfig(env, []);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('the configuration was accepted');
};

describe('the development keys with a real chain configured (issue 35, point 6)', () => {
  it('refuses the development deposit key outside production, naming the variable and the chain', () => {
    const message = startupError({ NODE_ENV: 'development', ...realChain });
    expect(message).toMatch(/DEPOSIT_XPUB: the development key .* not allowed with a real chain \(BASE_RPC_URL\)/);
    expect(message).toMatch(/set your own xpub/);
  });

  it('with x402 on, refuses every development key at once, each named with what to set', () => {
    const message = startupError({ ...realChain, POLYGON_RPC_URL: 'https://polygon-rpc.com', X402_ENABLED: 'true' });
    for (const variable of ['DEPOSIT_XPUB', ...x402Variables]) expect(message).toContain(`${variable}: `);
    expect(message).toContain('with a real chain (BASE_RPC_URL, POLYGON_RPC_URL)');
    expect(message).toContain('set the address that receives x402 payments');
  });

  it('refuses the development TASK_ID_SECRET with x402 off too: it keys every output link an Idempotency-Key names', () => {
    const { TASK_ID_SECRET: _, ...withoutSecret } = ownKeys;
    const message = startupError({ ...realChain, ...withoutSecret, X402_ENABLED: 'false' });
    expect(message).toMatch(/^Invalid configuration — TASK_ID_SECRET: the development secret is public, not allowed/);
    expect(message).toContain('set a random secret of 32 characters or more');
    expect(startupError({ ...realChain, ...ownKeys, TASK_ID_SECRET: 'short' })).toMatch(/TASK_ID_SECRET: expected/);
    expect(loadConfig({ ...realChain, ...ownKeys }, []).outputs.taskIdSecret).toBe(ownKeys.TASK_ID_SECRET);
    // Where the development keys are allowed, so is its secret.
    expect(loadConfig({}, []).outputs.taskIdSecret).toBe(developmentKeyedTaskIdSecret);
  });

  it('names only the keys still at their development values', () => {
    const message = startupError({ ...realChain, X402_ENABLED: 'true', DEPOSIT_XPUB: ownKeys.DEPOSIT_XPUB });
    expect(message).not.toContain('DEPOSIT_XPUB');
    for (const variable of x402Variables) expect(message).toContain(`${variable}: `);
  });

  it('starts with keys of its own (an external facilitator needs no gas key)', () => {
    expect(loadConfig({ ...realChain, ...ownKeys, X402_ENABLED: 'true' }, []).x402).toMatchObject({ enabled: true });
    const { X402_FACILITATOR_PRIVATE_KEY: _, ...withoutGasKey } = ownKeys;
    const external = { ...realChain, ...withoutGasKey, X402_ENABLED: 'true', X402_FACILITATOR_URL: 'https://x402.org' };
    expect(loadConfig(external, []).x402.facilitatorUrl).toBe('https://x402.org');
  });

  it('keeps them on the local chain the runtime started (npm start, the cluster’s processes)', () => {
    const local = 'http://127.0.0.1:8545';
    expect(loadConfig({}, []).x402.enabled).toBe(true);
    const cluster = { LOCAL_CHAIN_RPC_URL: local, BASE_RPC_URL: local, X402_ENABLED: 'true' };
    expect(loadConfig(cluster, []).chains.base.rpcUrl).toBe(local);
    // Another chain beside it is real, whatever its address.
    expect(() => loadConfig({ ...cluster, POLYGON_RPC_URL: 'http://127.0.0.1:9545' }, [])).toThrow(
      /with a real chain \(POLYGON_RPC_URL\)/,
    );
  });
});

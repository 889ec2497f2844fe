import { describe, expect, it } from 'vitest';
import { developmentDepositXpub, loadConfig } from '../../src/config.ts';
import { depositAddresses, deriveDepositAddress } from '../../src/services/deposit-addresses.ts';

describe('deposit addresses', () => {
  it("derive from the xpub exactly as a wallet derives them from the seed (anvil's well-known accounts)", () => {
    // m/44'/60'/0'/0/i of the test mnemonic: the first accounts every local chain funds.
    expect(deriveDepositAddress(developmentDepositXpub, 0)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(deriveDepositAddress(developmentDepositXpub, 1)).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    expect(deriveDepositAddress(developmentDepositXpub, 2)).toBe('0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC');
  });

  it("map each enabled chain to the agent's address, and nothing for an account without an index", () => {
    const config = loadConfig({ DEPOSIT_CHAINS: 'base,polygon' }, []);
    expect(depositAddresses(config, 1)).toEqual({
      base: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      polygon: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    });
    expect(depositAddresses(config, null)).toEqual({});
  });

  it('refuse the development key in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' }, [])).toThrow(/DEPOSIT_XPUB: the development key/);
    expect(() => loadConfig({ DEPOSIT_CHAINS: 'base,solana' }, [])).toThrow(/DEPOSIT_CHAINS/);
    expect(() => loadConfig({ DEPOSIT_XPUB: 'xprv-not-a-key' }, [])).toThrow(/DEPOSIT_XPUB/);
    expect(() => loadConfig({ TRIAL_CREDIT_USD: '-1' }, [])).toThrow(/TRIAL_CREDIT_USD/);
  });
});

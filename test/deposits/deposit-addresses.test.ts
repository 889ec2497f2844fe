import { describe, expect, it } from 'vitest';
import { privateKeyToAccount, mnemonicToAccount } from 'viem/accounts';
import {
  developmentDepositMnemonic,
  developmentDepositXpub,
  developmentFacilitatorKey,
  loadConfig,
} from '../../src/config/config.ts';
import { anvilDevAccount, testUsdcSender } from '../../src/chain/local-chain.ts';
import { enabledChains, withLocalChain } from '../../src/chain/settings.ts';
import { depositAddresses, deriveDepositAddress } from '../../src/deposits/addresses.ts';

// Any valid xpub other than the development one (BIP-32 test vector 1, m).
const otherXpub =
  'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8';

describe('deposit addresses', () => {
  it('derive from the xpub exactly as a wallet derives them from the development mnemonic', () => {
    for (const index of [0, 1, 2, 1_000]) {
      const wallet = mnemonicToAccount(developmentDepositMnemonic, { addressIndex: index });
      expect(deriveDepositAddress(developmentDepositXpub, index)).toBe(wallet.address);
    }
  });

  it("are never one of the local chain's funded accounts: anvil's, the test token's sender or the facilitator's", () => {
    const facilitator = privateKeyToAccount(developmentFacilitatorKey).address;
    const funded = new Set(
      [
        ...Array.from({ length: 20 }, (_, index) => anvilDevAccount(index).address),
        testUsdcSender.address,
        facilitator,
      ].map((address) => address.toLowerCase()),
    );
    const deposits = Array.from({ length: 2_000 }, (_, index) =>
      deriveDepositAddress(developmentDepositXpub, index).toLowerCase(),
    );
    expect(deposits.filter((address) => funded.has(address))).toEqual([]);
  });

  it("map each enabled chain (named in DEPOSIT_CHAINS, with an RPC URL) to the agent's address", () => {
    const rpc = 'http://127.0.0.1:8545';
    const config = loadConfig(
      {
        DEPOSIT_CHAINS: 'base,polygon',
        BASE_RPC_URL: rpc,
        POLYGON_RPC_URL: rpc,
        ETHEREUM_RPC_URL: rpc,
        DEPOSIT_XPUB: otherXpub,
        TASK_ID_SECRET: 'y'.repeat(40),
      },
      [],
    );
    const address = deriveDepositAddress(otherXpub, 1);
    expect(depositAddresses(config, 1)).toEqual({ base: address, polygon: address });
    expect(depositAddresses(config, null)).toEqual({});
    expect(depositAddresses(loadConfig({}, []), 1)).toEqual({});
  });

  it('serve the local chain under LOCAL_CHAIN_NAME with its own confirmation depth', () => {
    const config = withLocalChain(loadConfig({ LOCAL_CHAIN_CONFIRMATIONS: '3' }, []).chains, {
      rpcUrl: 'http://127.0.0.1:9999',
      usdcAddress: '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35',
    });
    expect(enabledChains(config)).toEqual([
      {
        chain: 'base',
        rpcUrl: 'http://127.0.0.1:9999',
        usdcAddress: '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35',
        confirmations: 3,
        local: true,
        chainId: 84532, // Base Sepolia's id, by default: x402 v1 clients can name it
      },
    ]);
  });

  it('refuse the development key in production', () => {
    const realChain = { BASE_RPC_URL: 'https://base.example' };
    expect(() => loadConfig({ NODE_ENV: 'production', ...realChain }, [])).toThrow(/DEPOSIT_XPUB: the development key/);
    expect(() => loadConfig({ NODE_ENV: 'production', DEPOSIT_XPUB: otherXpub }, [])).toThrow(
      /production needs at least one real chain/,
    );
    expect(() => loadConfig({ BASE_USDC_ADDRESS: '0x1234' }, [])).toThrow(/BASE_USDC_ADDRESS: expected an EVM address/);
    expect(() => loadConfig({ DEPOSIT_CHAINS: 'base,solana' }, [])).toThrow(/DEPOSIT_CHAINS/);
    expect(() => loadConfig({ DEPOSIT_XPUB: 'xprv-not-a-key' }, [])).toThrow(/DEPOSIT_XPUB/);
    expect(() => loadConfig({ TRIAL_CREDIT_USD: '-1' }, [])).toThrow(/TRIAL_CREDIT_USD/);
  });
});

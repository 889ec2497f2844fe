// genctl chain fund|send: the real command line against a real local chain, found through the chain.json that
// `npm start` writes (written here as the runtime does).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEventLogs, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLocalChainFile } from '../../src/chain/local-chain-file.ts';
import { localChainClients, startLocalChain, type LocalChain } from '../../src/chain/local-chain.ts';
import { testUsdcAbi } from '../../src/chain/test-usdc.ts';
import { genctlSender } from '../../src/cli/chain-commands.ts';
import { runGenctl } from '../helpers/genctl.ts';
import { testLogger } from '../helpers/logger.ts';
import { freePort } from '../../harness/ports.ts';

let dataDir: string;
let chain: LocalChain;
const genctlIn = (dir: string, ...args: string[]) => runGenctl({ DATA_DIR: dir }, args);
const genctl = (...args: string[]) => genctlIn(dataDir, ...args);

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'genctl-chain-'));
  chain = await startLocalChain({ dataDir, log: testLogger });
  await writeLocalChainFile(dataDir, { ...chain, chain: 'base' });
});
afterAll(async () => {
  await chain?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const publicClient = () => localChainClients(chain.rpcUrl, chain.chainId).publicClient;
const balanceOf = (owner: Address) =>
  publicClient().readContract({
    address: chain.usdcAddress,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [owner],
  });

async function transferOf(hash: Hex) {
  const receipt = await publicClient().getTransactionReceipt({ hash });
  const [transfer, ...others] = parseEventLogs({ abi: testUsdcAbi, eventName: 'Transfer', logs: receipt.logs });
  expect(others).toEqual([]);
  expect(transfer!.address.toLowerCase()).toBe(chain.usdcAddress.toLowerCase());
  return transfer!.args;
}

const zeroAddress = '0x0000000000000000000000000000000000000000';

describe('genctl chain', () => {
  it('fund mints the exact amount in base units to any address and prints the transaction', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey()).address;
    const funded = await genctl('chain', 'fund', wallet, '--amount', '25.000001', '--json');
    expect(funded.code, funded.stderr).toBe(0);
    expect(funded.json).toEqual({
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      block_number: expect.any(Number),
      chain: 'base',
      chain_id: chain.chainId,
      to: wallet,
      amount: '25.000001',
      balance: '25.000001',
    });
    expect(await transferOf(funded.json.tx_hash)).toEqual({ from: zeroAddress, to: wallet, value: 25_000_001n });
    expect(await balanceOf(wallet)).toBe(25_000_001n);

    const again = await genctl('chain', 'fund', wallet, '--amount', '0.5');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      /Minted 0\.50 test USDC to 0x[0-9a-fA-F]{40} on the local chain \("base"\), now holding 25\.500001\.\ntx 0x[0-9a-f]{64}\n$/,
    );
  });

  it('send transfers from genctl’s own funded account, or from --from-key when that wallet holds enough', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const sent = await genctl('chain', 'send', '--to', recipient, '--amount', '5', '--json');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.json).toMatchObject({ from: genctlSender.address, to: recipient, amount: '5.00', chain: 'base' });
    expect(await transferOf(sent.json.tx_hash)).toEqual({
      from: genctlSender.address,
      to: recipient,
      value: 5_000_000n,
    });

    // A wallet of the operator's: refused while short (nothing sent), then sends once funded; gas is provided.
    const key = generatePrivateKey();
    const wallet = privateKeyToAccount(key).address;
    const short = await genctl('chain', 'send', '--to', recipient, '--amount', '2', '--from-key', key);
    expect(short).toMatchObject({ code: 1 });
    expect(short.stderr).toContain(`${wallet} holds 0.00 test USDC, less than 2.00: fund it first`);
    expect((await genctl('chain', 'fund', wallet, '--amount', '3')).code).toBe(0);
    const fromWallet = await genctl('chain', 'send', '--to', recipient, '--amount', '2', '--from-key', key);
    expect(fromWallet.code, fromWallet.stderr).toBe(0);
    const hash = /tx (0x[0-9a-f]{64})/.exec(fromWallet.stdout)![1] as Hex;
    expect(await transferOf(hash)).toEqual({ from: wallet, to: recipient, value: 2_000_000n });
    expect(await balanceOf(recipient)).toBe(7_000_000n);
    expect(await balanceOf(wallet)).toBe(1_000_000n);
  });

  it.each([
    [['chain', 'fund', '0x1234', '--amount', '1'], 'must be an EVM address'],
    [['chain', 'fund', zeroAddress], 'missing --amount'],
    [['chain', 'send', '--amount', '1'], 'missing --to'],
    [['chain', 'send', '--to', zeroAddress, '--amount', '1.0000001'], 'at most six decimals'],
    [['chain', 'send', '--to', zeroAddress, '--amount', '0'], '--amount must be more than 0'],
    [['chain', 'send', '--to', zeroAddress, '--amount=-1'], 'at most six decimals'],
    [['chain', 'send', '--to', zeroAddress, '--amount', '1e3'], 'at most six decimals'],
    [['chain', 'send', '--to', zeroAddress, '--amount', '1', '--from-key', '0x12'], '--from-key must be a private key'],
  ])('refuses %j as a usage error (exit 2)', async (args, message) => {
    const result = await genctl(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('refuses (exit 1) without a local chain: no chain.json, or a chain that does not answer', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'genctl-chain-none-'));
    try {
      const absent = await genctlIn(elsewhere, 'chain', 'fund', zeroAddress, '--amount', '1', '--json');
      expect(absent.code).toBe(1);
      expect(JSON.parse(absent.stderr).error).toContain(
        `no local chain: ${join(elsewhere, 'anvil', 'chain.json')} is absent`,
      );

      // What a crashed `npm start` leaves behind: the file, naming a port nobody listens on.
      const rpcUrl = `http://127.0.0.1:${await freePort()}`;
      await writeLocalChainFile(elsewhere, { ...chain, rpcUrl, chain: 'base' });
      const silent = await genctlIn(elsewhere, 'chain', 'send', '--to', zeroAddress, '--amount', '1');
      expect(silent.code).toBe(1);
      expect(silent.stderr).toContain(`the local chain at ${rpcUrl}`);
      expect(silent.stderr).toContain('does not answer');
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});

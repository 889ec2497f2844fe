// The local chain: anvil with its state under DATA_DIR, the test token always at the same address, and Multicall3 and
// Permit2 at their canonical ones (as on every public chain), with x402's upto proxy at the address x402 expects.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getContractAddress,
  parseEther,
  http,
  type Account,
  type Address,
  type Hash,
  type Hex,
} from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { startAnvil } from '../infra/anvil.ts';
import type { Logger } from '../infra/logger.ts';
import { testUsdcAbi, testUsdcBytecode } from './test-usdc.ts';
import { ensureUptoContracts } from './upto-contracts.ts';

/** anvil's well-known development mnemonic: its accounts are funded with ETH at genesis. Never use it elsewhere. */
export const anvilDevMnemonic = 'test test test test test test test test test test test junk';

export function anvilDevAccount(addressIndex: number) {
  return mnemonicToAccount(anvilDevMnemonic, { addressIndex });
}

/**
 * The token's deployer and owner (minter). It sends nothing but the deployment and mints, so the deployment is
 * always its nonce-0 transaction and the token's address is the same on every fresh chain.
 */
export const testUsdcDeployer = anvilDevAccount(9);
/**
 * Sends test USDC when no other sender is given: m/44'/60'/1'/0/0 of anvil's mnemonic, not an agent's deposit address
 * (the development deposit key is a key of its own), so its top-ups are never deposits. Its gas is set by anvil.
 */
export const testUsdcSender = mnemonicToAccount(anvilDevMnemonic, { accountIndex: 1 });
export const testUsdcAddress = getContractAddress({ from: testUsdcDeployer.address, nonce: 0n });

export interface LocalChain {
  rpcUrl: string;
  chainId: number;
  usdcAddress: Address;
  deployer: Address;
  /** anvil's process id. */
  pid: number;
  stop(): Promise<void>;
}

export interface LocalChainOptions {
  dataDir: string;
  /** Interval mining; 0 or absent: every transaction is mined at once. */
  blockTimeSeconds?: number;
  /** Also dump the state every so many seconds, not only on a graceful stop. */
  stateIntervalSeconds?: number;
  chainId?: number;
  log: Logger;
}

// Confirmations are counted on these clients: no cached block number, and a short poll for a local chain.
const clientOptions = { cacheTime: 0, pollingInterval: 100 } as const;

export function localChainClients(rpcUrl: string, chainId: number) {
  const chain = defineChain({
    id: chainId,
    name: `local ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl);
  return {
    chain,
    publicClient: createPublicClient({ chain, transport, ...clientOptions }),
    walletClient: (account: Account) => createWalletClient({ chain, transport, account, ...clientOptions }),
  };
}

async function clientsFor(rpcUrl: string) {
  const probe = createPublicClient({ transport: http(rpcUrl), ...clientOptions });
  return localChainClients(rpcUrl, await probe.getChainId());
}

// One send at a time per account and chain: two concurrent sends would otherwise read the same pending nonce.
const sendQueues = new Map<string, Promise<unknown>>();
function serialized<T>(key: string, send: () => Promise<T>): Promise<T> {
  const previous = sendQueues.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(send);
  sendQueues.set(key, next);
  void next.finally(() => sendQueues.get(key) === next && sendQueues.delete(key)).catch(() => undefined);
  return next;
}

async function sendAndConfirm(rpcUrl: string, account: Account, send: () => Promise<Hash>): Promise<Hash> {
  const { publicClient } = await clientsFor(rpcUrl);
  const hash = await serialized(`${rpcUrl}:${account.address}`, send);
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  return hash;
}

/** Deploys a TestUSDC from `account` and returns its address (waits for the receipt). */
export async function deployTestUsdc(rpcUrl: string, account: Account): Promise<Address> {
  const { publicClient, walletClient } = await clientsFor(rpcUrl);
  const hash = await serialized(`${rpcUrl}:${account.address}`, () =>
    walletClient(account).deployContract({ abi: testUsdcAbi, bytecode: testUsdcBytecode }),
  );
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`TestUSDC deployment ${hash} failed`);
  return receipt.contractAddress;
}

/** Multicall3's address on every public chain: x402's facilitator reads through it to tell why a payment would fail. */
export const multicall3Address: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** Multicall3's creation code as viem ships it: no public entry point of viem exports it, so its module is loaded by path. */
async function multicall3CreationCode(): Promise<Hex> {
  const viemRoot = dirname(createRequire(import.meta.url).resolve('viem/package.json'));
  const contracts = (await import(pathToFileURL(join(viemRoot, '_esm', 'constants', 'contracts.js')).href)) as {
    multicall3Bytecode?: unknown;
  };
  const code = contracts.multicall3Bytecode;
  if (typeof code !== 'string' || !code.startsWith('0x')) throw new Error("viem's Multicall3 creation code not found");
  return code as Hex;
}

/**
 * Puts Multicall3's runtime code at its canonical address unless code is already there (a chain restarted from its
 * state). The creation code runs in an eth_call, whose result is the runtime code: no transaction, nonce or block.
 */
export async function ensureMulticall3(rpcUrl: string, log: Logger): Promise<{ installed: boolean }> {
  const { publicClient } = await clientsFor(rpcUrl);
  const code = await publicClient.getCode({ address: multicall3Address });
  if (code && code !== '0x') return { installed: false };
  const { data: runtimeCode } = await publicClient.call({ data: await multicall3CreationCode() });
  if (!runtimeCode || runtimeCode === '0x') throw new Error("Multicall3's creation code returned no runtime code");
  await createTestClient({ mode: 'anvil', transport: http(rpcUrl) }).setCode({
    address: multicall3Address,
    bytecode: runtimeCode,
  });
  log.info({ address: multicall3Address }, 'Multicall3 installed');
  return { installed: true };
}

/**
 * Deploys the test token at its fixed address unless it is already there (a chain restarted from its state); first
 * makes sure Multicall3, Permit2 and the upto proxy are at their addresses.
 */
export async function ensureTestUsdc(rpcUrl: string, log: Logger): Promise<{ address: Address; deployed: boolean }> {
  const { publicClient } = await clientsFor(rpcUrl);
  await Promise.all([ensureMulticall3(rpcUrl, log), ensureUptoContracts(rpcUrl, publicClient.chain.id, log)]);
  const code = await publicClient.getCode({ address: testUsdcAddress });
  if (code && code !== '0x') return { address: testUsdcAddress, deployed: false };
  const nonce = await publicClient.getTransactionCount({ address: testUsdcDeployer.address });
  if (nonce !== 0) {
    throw new Error(
      `the test token's deployer ${testUsdcDeployer.address} has sent ${nonce} transactions but no token is at ` +
        `${testUsdcAddress}: the chain state was not made by this gateway (remove it to start a fresh chain)`,
    );
  }
  const address = await deployTestUsdc(rpcUrl, testUsdcDeployer);
  if (address.toLowerCase() !== testUsdcAddress.toLowerCase()) {
    throw new Error(`TestUSDC deployed at ${address}, expected ${testUsdcAddress}`);
  }
  log.info({ address }, 'test token deployed');
  return { address: testUsdcAddress, deployed: true };
}

export async function startLocalChain(options: LocalChainOptions): Promise<LocalChain> {
  const log = options.log.child({ component: 'local-chain' });
  const anvil = await startAnvil({
    stateFile: join(options.dataDir, 'anvil', 'state.json'),
    stateIntervalSeconds: options.stateIntervalSeconds,
    blockTimeSeconds: options.blockTimeSeconds || undefined,
    chainId: options.chainId,
    log: options.log,
  });
  try {
    const { address } = await ensureTestUsdc(anvil.rpcUrl, log);
    return {
      rpcUrl: anvil.rpcUrl,
      chainId: anvil.chainId,
      usdcAddress: address,
      deployer: testUsdcDeployer.address,
      pid: anvil.pid,
      stop: anvil.stop,
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** The owner mints `amount` base units (6 decimals) to `to`; resolves once mined. */
export async function mintTestUsdc(options: {
  rpcUrl: string;
  usdcAddress: Address;
  to: Address;
  amount: bigint;
}): Promise<Hash> {
  const { walletClient } = await clientsFor(options.rpcUrl);
  return sendAndConfirm(options.rpcUrl, testUsdcDeployer, () =>
    walletClient(testUsdcDeployer).writeContract({
      address: options.usdcAddress,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [options.to, options.amount],
    }),
  );
}

/**
 * Sends `amount` base units of test USDC to `to` (a deposit, as a user's wallet would make it); resolves once mined.
 * Without `fromPrivateKey` testUsdcSender sends, given gas and minted to first when its balance is short.
 */
export async function sendTestUsdc(options: {
  rpcUrl: string;
  usdcAddress: Address;
  fromPrivateKey?: Hex;
  to: Address;
  amount: bigint;
}): Promise<Hash> {
  const { publicClient, walletClient } = await clientsFor(options.rpcUrl);
  const account = options.fromPrivateKey ? privateKeyToAccount(options.fromPrivateKey) : testUsdcSender;
  if (!options.fromPrivateKey) {
    if ((await publicClient.getBalance({ address: account.address })) < parseEther('1')) {
      await createTestClient({ mode: 'anvil', transport: http(options.rpcUrl) }).setBalance({
        address: account.address,
        value: parseEther('10'),
      });
    }
    const balance = await publicClient.readContract({
      address: options.usdcAddress,
      abi: testUsdcAbi,
      functionName: 'balanceOf',
      args: [account.address],
    });
    if (balance < options.amount) {
      await mintTestUsdc({ ...options, to: account.address, amount: options.amount - balance });
    }
  }
  return sendAndConfirm(options.rpcUrl, account, () =>
    walletClient(account).writeContract({
      address: options.usdcAddress,
      abi: testUsdcAbi,
      functionName: 'transfer',
      args: [options.to, options.amount],
    }),
  );
}

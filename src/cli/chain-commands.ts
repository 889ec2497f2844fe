// genctl chain: test USDC on the local development chain that `npm start` runs (never a real network), found through
// the <DATA_DIR>/anvil/chain.json it writes.
import { createPublicClient, createTestClient, http, isAddress, parseEther, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { localChainFile, readLocalChainFile, type LocalChainInfo } from '../chain/local-chain-file.ts';
import { mintTestUsdc, sendTestUsdc, testUsdcSender } from '../chain/local-chain.ts';
import { testUsdcAbi } from '../chain/test-usdc.ts';
import { formatUsd, parseUsd } from '../domain/money.ts';
import { CommandError, type Output } from './commands.ts';

/** genctl's default sender: never an agent's deposit address (see testUsdcSender). */
export const genctlSender = testUsdcSender;

// Enough ETH for gas on the local chain, topped up with anvil_setBalance: a sender needs no faucet.
const gasBalance = parseEther('10');

function address(value: string | undefined, what: string): Address {
  if (!value) throw new CommandError(`missing ${what}`, 2);
  if (!isAddress(value, { strict: false })) throw new CommandError(`${what} must be an EVM address (0x + 40 hex)`, 2);
  return value;
}

/** USDC (up to six decimals) → base units, exactly: the token has 6 decimals, as micro-USD has. */
function usdcAmount(value: string | undefined): bigint {
  if (!value) throw new CommandError('missing --amount', 2);
  let amount: bigint;
  try {
    amount = parseUsd(value);
  } catch {
    throw new CommandError(`--amount: "${value}" is not an amount of USDC with at most six decimals`, 2);
  }
  if (amount <= 0n) throw new CommandError('--amount must be more than 0', 2);
  return amount;
}

function privateKey(value: string | undefined): Hex | undefined {
  if (value === undefined) return undefined;
  if (!/^0x[0-9a-fA-F]{64}$/.test(value)) throw new CommandError('--from-key must be a private key (0x + 64 hex)', 2);
  return value as Hex;
}

/** The local chain of a running `npm start`, after checking that it answers and holds the test token. */
async function reachLocalChain(dataDir: string): Promise<LocalChainInfo> {
  const file = localChainFile(dataDir);
  const info = await readLocalChainFile(dataDir).catch((error: Error) => {
    throw new CommandError(error.message);
  });
  if (!info) {
    throw new CommandError(
      `no local chain: ${file} is absent. genctl chain works only with the local development chain that \`npm start\` runs when no chain has an RPC URL; start it (with the same DATA_DIR) first`,
    );
  }
  const client = createPublicClient({ transport: http(info.rpcUrl, { timeout: 3_000, retryCount: 0 }) });
  let chainId: number;
  let code: Hex | undefined;
  try {
    chainId = await client.getChainId();
    code = await client.getCode({ address: info.usdcAddress });
  } catch {
    throw new CommandError(
      `the local chain at ${info.rpcUrl} (named in ${file}) does not answer: is \`npm start\` still running?`,
    );
  }
  if (chainId !== info.chainId || !code || code === '0x') {
    throw new CommandError(`${info.rpcUrl} is not the local chain described in ${file} (restart \`npm start\`)`);
  }
  return info;
}

const testClient = (info: LocalChainInfo) => createTestClient({ mode: 'anvil', transport: http(info.rpcUrl) });
const publicClient = (info: LocalChainInfo) => createPublicClient({ transport: http(info.rpcUrl), cacheTime: 0 });

const balanceOf = (info: LocalChainInfo, owner: Address) =>
  publicClient(info).readContract({
    address: info.usdcAddress,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [owner],
  });

async function ensureGas(info: LocalChainInfo, owner: Address): Promise<void> {
  if ((await publicClient(info).getBalance({ address: owner })) < gasBalance / 10n) {
    await testClient(info).setBalance({ address: owner, value: gasBalance });
  }
}

async function transactionFacts(info: LocalChainInfo, hash: Hex) {
  const receipt = await publicClient(info).getTransactionReceipt({ hash });
  return { tx_hash: hash, block_number: Number(receipt.blockNumber), chain: info.chain, chain_id: info.chainId };
}

/** Mints test USDC to any address. */
export async function fundCommand(
  dataDir: string,
  target: string | undefined,
  options: { amount?: string },
): Promise<Output> {
  const to = address(target, 'the address to fund');
  const amount = usdcAmount(options.amount);
  const info = await reachLocalChain(dataDir);
  const hash = await mintTestUsdc({ rpcUrl: info.rpcUrl, usdcAddress: info.usdcAddress, to, amount });
  const balance = await balanceOf(info, to);
  return {
    json: { ...(await transactionFacts(info, hash)), to, amount: formatUsd(amount), balance: formatUsd(balance) },
    text: `Minted ${formatUsd(amount)} test USDC to ${to} on the local chain ("${info.chain}"), now holding ${formatUsd(balance)}.\ntx ${hash}`,
  };
}

/** Transfers test USDC, as a user's wallet would make a deposit: from genctl's own dev account, or --from-key. */
export async function sendCommand(
  dataDir: string,
  options: { to?: string; amount?: string; fromKey?: string },
): Promise<Output> {
  const to = address(options.to, '--to');
  const amount = usdcAmount(options.amount);
  const givenKey = privateKey(options.fromKey);
  const info = await reachLocalChain(dataDir);
  const from = givenKey ? privateKeyToAccount(givenKey).address : genctlSender.address;
  // The default sender is given gas and minted what it lacks by sendTestUsdc; another wallet's balance is the
  // operator's to arrange (genctl only gives it gas).
  if (givenKey) {
    const held = await balanceOf(info, from);
    if (held < amount) {
      throw new CommandError(
        `${from} holds ${formatUsd(held)} test USDC, less than ${formatUsd(amount)}: fund it first (genctl chain fund ${from} --amount …)`,
      );
    }
    await ensureGas(info, from);
  }
  const hash = await sendTestUsdc({
    rpcUrl: info.rpcUrl,
    usdcAddress: info.usdcAddress,
    fromPrivateKey: givenKey,
    to,
    amount,
  });
  return {
    json: { ...(await transactionFacts(info, hash)), from, to, amount: formatUsd(amount) },
    text: `Sent ${formatUsd(amount)} test USDC from ${from} to ${to} on the local chain ("${info.chain}").\ntx ${hash}`,
  };
}

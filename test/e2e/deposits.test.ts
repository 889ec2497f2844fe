// USDC deposits through the real stack: a real anvil with the real test token, the gateway reading it through an
// RPC proxy the test can take down, the deposit workflow on the Temporal dev server, money in PostgreSQL.
import { createServer, request, type Server } from 'node:http';
import { encodeFunctionData, keccak256, type Address, type Hash, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilDevAccount, localChainClients } from '../../src/chain/local-chain.ts';
import { testUsdcAbi } from '../../src/chain/test-usdc.ts';
import { credit, ledgerTotals } from '../../src/ledger/ledger.ts';
import { ensureDepositScanSchedules } from '../../src/use-cases/temporal/deposit-scan-schedules.ts';
import { useLocalChain } from '../helpers/chain.ts';
import { useGateway } from '../helpers/gateway.ts';
import { call, type RegisteredAgent, registerAgent } from '../helpers/http.ts';
import { listenLocally } from '../../harness/local-server.ts';
import { type Receiver, startReceiver, verifyDelivery } from '../../harness/webhook-receiver.ts';
import { mergeConfig } from '../helpers/config.ts';
import { deployMultisend } from '../helpers/multisend.ts';

const confirmations = 3;
const chain = useLocalChain();
// The gateway reads the chain through this proxy; `rpcDown` makes it answer 503, like a node that is unavailable.
let rpcProxy: Server;
let rpcProxyUrl: string;
let rpcDown = false;
let hooks: Receiver;
beforeAll(async () => {
  rpcProxy = createServer((req, res) => {
    if (rpcDown) return void res.writeHead(503).end('unavailable');
    const upstream = request(chain.rpcUrl, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  rpcProxyUrl = (await listenLocally(rpcProxy)).url;
  hooks = await startReceiver(() => ({ status: 200 }));
});
afterAll(async () => {
  rpcProxy?.close();
  await hooks?.close();
});

const stack = useGateway(() => ({
  server: { trustProxy: 'loopback' },
  chains: { enabled: ['base'], base: { rpcUrl: rpcProxyUrl, usdcAddress: chain.usdcAddress, confirmations } },
  deposits: {
    waitSeconds: 3,
    receiptWaitSeconds: 3,
    // Not the development key: its addresses are anvil's funded dev accounts, which send the test transfers.
    xpub: 'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8',
  },
}));

const payer = anvilDevAccount(7);
const usdc = (text: string) => BigInt(Math.round(Number(text) * 1e6));
const addressOf = (agent: RegisteredAgent) => agent.deposit_addresses.base as Address;
const deposit = (agent: RegisteredAgent, txHash: string) =>
  call(stack, 'POST', '/agents/deposit', { key: agent.api_key, body: { chain: 'base', tx_hash: txHash } });
const balanceOf = async (agent: RegisteredAgent) =>
  (await call(stack, 'GET', '/agents/balance', { key: agent.api_key })).body;

async function expectLedgerMatchesBalance(agent: RegisteredAgent) {
  const row = await stack.database.prisma.balance.findUniqueOrThrow({ where: { accountId: agent.agent_id } });
  const totals = await ledgerTotals(stack.database.prisma, agent.agent_id);
  expect({ balance: totals.balance, reserved: totals.reserved }).toEqual({
    balance: row.balance,
    reserved: row.reserved,
  });
}

async function pay(to: Address, amount: bigint): Promise<Hash> {
  await chain.mint(payer.address, amount);
  return chain.transfer({ from: payer, to, amount });
}

// Signs a USDC transfer without sending it: its hash is known before any node has seen it, and the same signed bytes
// can be sent again after a reorganisation dropped them. Its own sender, so no other test's send takes its nonce.
const rawSender = anvilDevAccount(6);
async function signedTransfer(to: Address, amount: bigint): Promise<{ raw: Hex; txHash: Hash }> {
  await chain.mint(rawSender.address, amount);
  const wallet = localChainClients(chain.rpcUrl, chain.chainId).walletClient(rawSender);
  const request = await wallet.prepareTransactionRequest({
    to: chain.usdcAddress,
    data: encodeFunctionData({ abi: testUsdcAbi, functionName: 'transfer', args: [to, amount] }),
    gas: 100_000n,
  });
  const raw = await wallet.signTransaction(request);
  return { raw, txHash: keccak256(raw) };
}
async function sendSigned(raw: Hex): Promise<void> {
  const wallet = localChainClients(chain.rpcUrl, chain.chainId).walletClient(rawSender);
  const hash = await wallet.sendRawTransaction({ serializedTransaction: raw });
  await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

const newAgent = (webhook?: string) =>
  registerAgent(stack, { body: webhook ? { webhook_url: webhook } : {} }).then(async (agent) => {
    expect(Object.keys(agent.deposit_addresses)).toEqual(['base']);
    return agent;
  });

/** A transfer claimed while pending, then dropped by a reorganisation: its deposit is rejected. */
async function droppedDeposit(amount: bigint) {
  const agent = await newAgent();
  const { raw, txHash } = await signedTransfer(addressOf(agent), amount);
  const snapshot = await chain.snapshot();
  await sendSigned(raw);
  expect((await deposit(agent, txHash)).body.success).toBe(false);
  await chain.revert(snapshot);
  await chain.mine(confirmations + 2);
  await expect
    .poll(async () => (await balanceOf(agent)).recent_deposits[0]?.status, { timeout: 30_000, interval: 500 })
    .toBe('rejected');
  return { agent, raw, txHash };
}

describe('POST /agents/deposit', () => {
  it('credits a confirmed USDC transfer once, with the exact amount, and tells the agent by webhook', async () => {
    const agent = await newAgent(`http://127.0.0.1:${hooks.port}/agent`);
    const before = await balanceOf(agent);
    const txHash = await pay(addressOf(agent), usdc('12.345678'));
    await chain.mine(confirmations - 1);

    const first = await deposit(agent, txHash);
    const expectedBalance = (Number(before.balance) + 12.345678).toFixed(6);
    expect(first).toMatchObject({
      status: 200,
      body: {
        success: true,
        amount_credited: '12.345678',
        new_balance: expectedBalance,
        tx_hash: txHash,
        chain: 'base',
      },
    });
    // The same agent again: the original answer, no second credit.
    const again = await deposit(agent, txHash.toUpperCase().replace('0X', '0x'));
    expect(again.body).toEqual(first.body);
    const entries = await stack.database.prisma.ledgerEntry.findMany({
      where: { accountId: agent.agent_id, kind: 'deposit' },
    });
    expect(entries.map((entry) => [entry.amount, entry.idempotencyKey])).toEqual([
      [12_345_678n, expect.stringMatching(new RegExp(`^deposit:base:${txHash}#\\d+$`))],
    ]);
    await expectLedgerMatchesBalance(agent);

    const balance = await balanceOf(agent);
    expect(balance.balance).toBe(expectedBalance);
    expect(balance.recent_deposits).toEqual([
      expect.objectContaining({ chain: 'base', amount_usd: '12.345678', tx_hash: txHash, status: 'credited' }),
    ]);
    await expect.poll(() => hooks.received.filter((hook) => hook.path === '/agent').length).toBe(1);
    const [delivery] = hooks.received.filter((hook) => hook.path === '/agent');
    expect(verifyDelivery(agent.webhook_secret ?? '', delivery!)).toMatchObject({
      event: 'deposit.credited',
      data: { tx_hash: txHash, amount_usd: '12.345678', status: 'credited', new_balance: expectedBalance },
    });
  });

  it('refuses a hash credited to another agent, and credits nothing to it', async () => {
    const [owner, other] = [await newAgent(), await newAgent()];
    const txHash = await pay(addressOf(owner), usdc('1'));
    await chain.mine(confirmations);
    expect((await deposit(owner, txHash)).body.success).toBe(true);
    const refused = await deposit(other, txHash);
    expect(refused).toMatchObject({ status: 400, body: { error: 'deposit_already_credited' } });
    expect((await balanceOf(other)).recent_deposits).toEqual([]);
    await expectLedgerMatchesBalance(other);
  });

  it.each([
    [
      'a transfer to an address that is no agent’s',
      async () => pay('0x000000000000000000000000000000000000dEaD', usdc('2')),
      'deposit_wrong_recipient',
    ],
    [
      'a transfer of another ERC-20 named USD Coin',
      async (agent: RegisteredAgent) => {
        const other = await chain.deployOtherToken();
        const { walletClient } = localChainClients(chain.rpcUrl, chain.chainId);
        const hash = await walletClient(anvilDevAccount(8)).writeContract({
          address: other,
          abi: testUsdcAbi,
          functionName: 'mint',
          args: [addressOf(agent), usdc('3')],
        });
        await chain.publicClient.waitForTransactionReceipt({ hash });
        return hash;
      },
      'deposit_wrong_token',
    ],
    [
      'a reverted transaction',
      async (agent: RegisteredAgent) => {
        // More than the payer holds, with the gas given so nothing simulates it first: mined, and reverted.
        const { walletClient } = localChainClients(chain.rpcUrl, chain.chainId);
        const hash = await walletClient(payer).sendTransaction({
          to: chain.usdcAddress,
          data: encodeFunctionData({
            abi: testUsdcAbi,
            functionName: 'transfer',
            args: [addressOf(agent), usdc('1000000000')],
          }),
          gas: 200_000n,
        });
        const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
        expect(receipt.status).toBe('reverted');
        return hash;
      },
      'deposit_reverted',
    ],
  ])('refuses %s', async (_, send, code) => {
    const agent = await newAgent();
    const txHash = await send(agent);
    await chain.mine(confirmations);
    const refused = await deposit(agent, txHash);
    expect(refused).toMatchObject({ status: 400, body: { error: code, message: expect.any(String) } });
    expect((await balanceOf(agent)).recent_deposits).toEqual([]);
    await expectLedgerMatchesBalance(agent);
  });

  it('refuses an unknown hash once the receipt wait is over, at once on every later claim, and credits it once mined', async () => {
    const agent = await newAgent();
    const { raw, txHash } = await signedTransfer(addressOf(agent), usdc('2.5'));
    // Within the receipt wait (3 s) the claims share one look-up; past it the hash is refused.
    expect((await deposit(agent, txHash)).body).toMatchObject({ success: false });
    await expect
      .poll(async () => (await deposit(agent, txHash)).body.error, { timeout: 20_000, interval: 500 })
      .toBe('deposit_not_found');
    // Claimed again: looked up once and refused at once, never a second wait answered with 200.
    for (let claim = 0; claim < 2; claim++) {
      const started = Date.now();
      const again = await deposit(agent, txHash);
      expect(again).toMatchObject({ status: 400, body: { error: 'deposit_not_found', message: expect.any(String) } });
      expect(Date.now() - started).toBeLessThan(stack.config.deposits.waitSeconds * 1000);
    }
    // The refusal ran its course as an outcome: no deposit workflow of this hash failed.
    const failed = stack.env.client.workflow.list({
      query: `WorkflowId = 'deposit:base:${txHash}' AND ExecutionStatus = 'Failed'`,
    });
    for await (const run of failed) expect.fail(`deposit run ${run.runId} failed`);

    // Mined after all: the next claim looks it up once more and credits it.
    await sendSigned(raw);
    await chain.mine(confirmations);
    await expect
      .poll(async () => (await deposit(agent, txHash)).body, { timeout: 20_000, interval: 500 })
      .toMatchObject({ success: true, amount_credited: '2.50' });
    await expectLedgerMatchesBalance(agent);
    // Runs of this hash: the one look-up every claim within the wait shared, one look for each refused claim, and one
    // for the claim that credited it.
    const runs = async () => {
      let count = 0;
      for await (const run of stack.env.client.workflow.list({ query: `WorkflowId = 'deposit:base:${txHash}'` })) {
        expect(run.status.name).toBe('COMPLETED');
        count += 1;
      }
      return count;
    };
    await expect.poll(runs, { timeout: 10_000, interval: 250 }).toBe(4);
  });

  it('credits every agent a multisend pays in one transaction, each transfer once', async () => {
    const [first, second, third] = [await newAgent(), await newAgent(), await newAgent()];
    const multisend = await deployMultisend(chain, anvilDevAccount(5));
    await chain.mint(payer.address, usdc('10'));
    const txHash = await multisend.send(payer, [
      [addressOf(first), usdc('1.5')],
      ['0x000000000000000000000000000000000000dEaD', usdc('1')],
      [addressOf(second), usdc('2.25')],
      [addressOf(first), usdc('0.5')],
    ]);
    await chain.mine(confirmations);

    expect((await deposit(second, txHash)).body).toMatchObject({ success: true, amount_credited: '2.25' });
    expect((await deposit(first, txHash)).body).toMatchObject({ success: true, amount_credited: '2.00' });
    expect(await deposit(third, txHash)).toMatchObject({ status: 400, body: { error: 'deposit_already_credited' } });
    // Each payment is its own USDC transfer, credited under its own key `deposit:<chain>:<tx>#<transfer index>`.
    const entry = (payment: number, amount: bigint) => `${amount} deposit:base:${txHash}#${payment}`;
    const entries = async (agent: RegisteredAgent) =>
      (await stack.database.prisma.ledgerEntry.findMany({ where: { accountId: agent.agent_id, kind: 'deposit' } }))
        .map((row) => `${row.amount} ${row.idempotencyKey}`)
        .sort();
    expect(await entries(first)).toEqual([entry(0, 1_500_000n), entry(3, 500_000n)].sort());
    expect(await entries(second)).toEqual([entry(2, 2_250_000n)]);
    for (const agent of [first, second, third]) await expectLedgerMatchesBalance(agent);
    expect((await balanceOf(second)).recent_deposits).toEqual([
      expect.objectContaining({ amount_usd: '2.25', tx_hash: txHash, status: 'credited' }),
    ]);
    expect((await balanceOf(third)).recent_deposits).toEqual([]);
  });

  it('ignores a zero-value transfer in the same transaction: the real payment beside it is credited', async () => {
    // Address-poisoning bots send zero-value transfers; one beside a real payment must not hold the payment back.
    const [poisoned, paid] = [await newAgent(), await newAgent()];
    const multisend = await deployMultisend(chain, anvilDevAccount(5));
    await chain.mint(payer.address, usdc('2'));
    const txHash = await multisend.send(payer, [
      [addressOf(poisoned), 0n],
      [addressOf(paid), usdc('1.25')],
      [addressOf(paid), 0n],
    ]);
    await chain.mine(confirmations);

    await expect
      .poll(async () => (await deposit(paid, txHash)).body, { timeout: 20_000, interval: 500 })
      .toMatchObject({ success: true, amount_credited: '1.25' });
    const rows = await stack.database.prisma.deposit.findMany({ where: { txHash } });
    expect(rows.map((row) => [row.accountId, row.amount, row.status])).toEqual([
      [paid.agent_id, 1_250_000n, 'credited'],
    ]);
    expect((await balanceOf(poisoned)).recent_deposits).toEqual([]);
    for (const agent of [poisoned, paid]) await expectLedgerMatchesBalance(agent);
  });

  it('answers success:false while confirming, then credits on its own', async () => {
    const agent = await newAgent();
    const before = Number((await balanceOf(agent)).balance);
    const txHash = await pay(addressOf(agent), usdc('4.5'));
    const pending = await deposit(agent, txHash);
    expect(pending).toMatchObject({
      status: 200,
      body: {
        success: false,
        amount_credited: '0.00',
        tx_hash: txHash,
        message: expect.stringMatching(/of 3 confirmations/),
      },
    });
    // The balance counts its confirmations as the claim did (no block is mined in between).
    const counted = Number(/has (\d+) of 3 confirmations/.exec(pending.body.message)![1]);
    expect(counted).toBeLessThan(confirmations);
    expect((await balanceOf(agent)).recent_deposits).toEqual([
      expect.objectContaining({ status: 'pending', confirmations: counted, confirmations_required: confirmations }),
    ]);
    await chain.mine(confirmations);
    await expect
      .poll(async () => (await balanceOf(agent)).recent_deposits[0]?.status, { timeout: 30_000, interval: 500 })
      .toBe('credited');
    expect((await balanceOf(agent)).recent_deposits[0]).toMatchObject({ confirmations, confirmations_required: 3 });
    expect(Number((await balanceOf(agent)).balance)).toBeCloseTo(before + 4.5, 6);
    await expectLedgerMatchesBalance(agent);
  });

  it('waits for a transaction that is still pending, then credits it once mined', async () => {
    const agent = await newAgent();
    await chain.mint(payer.address, usdc('6'));
    await chain.setAutomine(false);
    let txHash: Hash;
    try {
      const { walletClient } = localChainClients(chain.rpcUrl, chain.chainId);
      txHash = await walletClient(payer).writeContract({
        address: chain.usdcAddress,
        abi: testUsdcAbi,
        functionName: 'transfer',
        args: [addressOf(agent), usdc('6')],
      });
      const pending = await deposit(agent, txHash);
      expect(pending.body).toMatchObject({ success: false, message: expect.stringMatching(/not been seen mined yet/) });
    } finally {
      await chain.setAutomine(true);
    }
    await chain.mine(confirmations + 1);
    await expect
      .poll(async () => (await balanceOf(agent)).recent_deposits[0]?.status, { timeout: 30_000, interval: 500 })
      .toBe('credited');
    await expectLedgerMatchesBalance(agent);
  });

  it('credits nothing when a reorganisation drops the transaction before its depth', async () => {
    const { agent } = await droppedDeposit(usdc('7'));
    const entries = await stack.database.prisma.ledgerEntry.count({
      where: { accountId: agent.agent_id, kind: 'deposit' },
    });
    expect(entries).toBe(0);
    await expectLedgerMatchesBalance(agent);
  });

  it('credits a transaction a reorganisation dropped once the same transaction is mined again', async () => {
    const { agent, raw, txHash } = await droppedDeposit(usdc('3.25'));
    expect(await deposit(agent, txHash)).toMatchObject({ status: 400, body: { error: 'deposit_not_found' } });

    // The same signed transaction, mined after all: a later claim credits it, once.
    await sendSigned(raw);
    await chain.mine(confirmations);
    await expect
      .poll(async () => (await deposit(agent, txHash)).body, { timeout: 20_000, interval: 500 })
      .toMatchObject({ success: true, amount_credited: '3.25' });
    expect((await balanceOf(agent)).recent_deposits).toEqual([
      expect.objectContaining({ tx_hash: txHash, amount_usd: '3.25', status: 'credited' }),
    ]);
    const entries = await stack.database.prisma.ledgerEntry.findMany({
      where: { accountId: agent.agent_id, kind: 'deposit' },
    });
    expect(entries.map((entry) => entry.amount)).toEqual([3_250_000n]);
    await expectLedgerMatchesBalance(agent);
  });

  it('keeps one row per transfer when a reorganisation mines it at another log index: no stale pending row', async () => {
    const agent = await newAgent();
    const { raw, txHash } = await signedTransfer(addressOf(agent), usdc('5.5'));
    const snapshot = await chain.snapshot();
    await sendSigned(raw);
    expect((await deposit(agent, txHash)).body.success).toBe(false);
    const firstLogIndex = (await chain.publicClient.getTransactionReceipt({ hash: txHash })).logs[0]!.logIndex;

    // The block is replaced by one where another USDC transfer comes first: the same transfer, a later log index.
    await chain.revert(snapshot);
    await chain.mint(payer.address, usdc('1'));
    await chain.setAutomine(false);
    try {
      const { walletClient } = localChainClients(chain.rpcUrl, chain.chainId);
      await walletClient(payer).writeContract({
        address: chain.usdcAddress,
        abi: testUsdcAbi,
        functionName: 'transfer',
        args: ['0x000000000000000000000000000000000000dEaD', usdc('1')],
        // A higher tip than the signed transfer's, so the block orders it first.
        maxPriorityFeePerGas: 50_000_000_000n,
        maxFeePerGas: 200_000_000_000n,
      });
      await walletClient(rawSender).sendRawTransaction({ serializedTransaction: raw });
      await chain.mine(1);
    } finally {
      await chain.setAutomine(true);
    }
    const moved = await chain.publicClient.getTransactionReceipt({ hash: txHash });
    expect(moved.logs[0]!.logIndex).toBeGreaterThan(firstLogIndex);
    await chain.mine(confirmations);

    await expect
      .poll(async () => (await deposit(agent, txHash)).body, { timeout: 30_000, interval: 500 })
      .toMatchObject({ success: true, amount_credited: '5.50' });
    const rows = await stack.database.prisma.deposit.findMany({ where: { txHash } });
    expect(rows.map((row) => [row.transferIndex, row.logIndex, row.status])).toEqual([
      [0, moved.logs[0]!.logIndex, 'credited'],
    ]);
    expect((await balanceOf(agent)).recent_deposits).toEqual([
      expect.objectContaining({ tx_hash: txHash, amount_usd: '5.50', status: 'credited' }),
    ]);
    await expectLedgerMatchesBalance(agent);
  });

  it('answers a ledger refusal of the credit as that, not as an unreadable chain, and credits nothing', async () => {
    const agent = await newAgent();
    const txHash = await pay(addressOf(agent), usdc('5'));
    await chain.mine(confirmations);
    // The ledger holds an entry under this transfer's key for another operation (an operator's adjustment written under
    // it by mistake): it refuses the credit, on every attempt.
    const other = await newAgent();
    const idempotencyKey = `deposit:base:${txHash.toLowerCase()}#0`;
    await credit(stack.database.prisma, { accountId: other.agent_id, amount: 1n, kind: 'adjustment', idempotencyKey });
    const before = await balanceOf(agent);

    let refused = await deposit(agent, txHash);
    // Within the claim's wait the run usually ends; if not, a later claim answers its end.
    for (let tries = 0; refused.status === 200 && tries < 20; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      refused = await deposit(agent, txHash);
    }
    expect(refused.status, JSON.stringify(refused.body)).toBe(500);
    expect(refused.body).toEqual({ error: 'internal_error', message: expect.stringContaining('the ledger refused') });
    expect(refused.body.message).toContain(txHash.toLowerCase());
    expect(refused.headers.get('retry-after')).toBeNull();
    expect((await balanceOf(agent)).balance).toBe(before.balance);
    const deposits = await stack.database.prisma.ledgerEntry.count({
      where: { accountId: agent.agent_id, kind: 'deposit' },
    });
    expect(deposits).toBe(0);
    await expectLedgerMatchesBalance(agent);
  });

  it('keeps going through an RPC outage and credits once the node answers again', async () => {
    const agent = await newAgent();
    const txHash = await pay(addressOf(agent), usdc('8'));
    await chain.mine(confirmations);
    rpcDown = true;
    try {
      const during = await deposit(agent, txHash);
      expect(during.body).toMatchObject({ success: false });
    } finally {
      setTimeout(() => {
        rpcDown = false;
      }, 3_000);
    }
    await expect
      .poll(async () => (await balanceOf(agent)).recent_deposits[0]?.status, { timeout: 40_000, interval: 500 })
      .toBe('credited');
    await expectLedgerMatchesBalance(agent);
  });
});

describe('the deposit watcher', () => {
  it('credits a transfer nobody reported, exactly once, even when a restart reads its blocks again', async () => {
    const agent = await newAgent();
    const config = mergeConfig(stack.config, { deposits: { scanIntervalSeconds: 1, scanLookbackBlocks: 5 } });
    expect(await ensureDepositScanSchedules(stack.env.client, config)).toEqual(['deposit-scan:base']);
    const txHash = await pay(addressOf(agent), usdc('9.75'));
    await chain.mine(confirmations);
    await expect
      .poll(async () => (await balanceOf(agent)).recent_deposits[0], { timeout: 30_000, interval: 500 })
      .toMatchObject({ tx_hash: txHash, amount_usd: '9.75', status: 'credited' });

    // The worker restarts, and its watcher has lost its place (a crash before the cursor moved): it reads the same
    // blocks again, and starts the same transaction's workflow again.
    await stack.restartWorkers();
    const cursor = await stack.database.prisma.chainCursor.findUniqueOrThrow({ where: { chain: 'base' } });
    expect(cursor.nextBlock).toBeGreaterThan(0n);
    await stack.database.prisma.chainCursor.update({ where: { chain: 'base' }, data: { nextBlock: 0n } });
    await expect
      .poll(
        async () => (await stack.database.prisma.chainCursor.findUniqueOrThrow({ where: { chain: 'base' } })).nextBlock,
        {
          timeout: 15_000,
        },
      )
      .toBeGreaterThanOrEqual(cursor.nextBlock);
    const entries = await stack.database.prisma.ledgerEntry.findMany({
      where: { accountId: agent.agent_id, kind: 'deposit' },
    });
    expect(entries.map((entry) => entry.amount)).toEqual([9_750_000n]);
    await expectLedgerMatchesBalance(agent);
    await stack.env.client.schedule.getHandle('deposit-scan:base').delete();
  });

  it('reads its last confirmations blocks again: a transfer a reorganisation put in blocks it had read is credited', async () => {
    const agent = await newAgent();
    const config = mergeConfig(stack.config, { deposits: { scanIntervalSeconds: 1, scanLookbackBlocks: 5 } });
    await ensureDepositScanSchedules(stack.env.client, config);
    try {
      // The watcher reads two empty blocks; a reorganisation then replaces them with blocks holding a transfer.
      const snapshot = await chain.snapshot();
      await chain.mine(2);
      const read = (await chain.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n;
      const cursor = async () =>
        (await stack.database.prisma.chainCursor.findUnique({ where: { chain: 'base' } }))?.nextBlock ?? 0n;
      await expect.poll(cursor, { timeout: 30_000, interval: 250 }).toBeGreaterThanOrEqual(read);
      await chain.revert(snapshot);
      const txHash = await pay(addressOf(agent), usdc('3.5'));
      await chain.mine(confirmations);
      await expect
        .poll(async () => (await balanceOf(agent)).recent_deposits[0], { timeout: 30_000, interval: 500 })
        .toMatchObject({ tx_hash: txHash, amount_usd: '3.50', status: 'credited' });
    } finally {
      await stack.env.client.schedule.getHandle('deposit-scan:base').delete();
    }
    await expectLedgerMatchesBalance(agent);
  });

  it('credits a transaction a reorganisation dropped when it sees the same transaction mined again', async () => {
    const { agent, raw, txHash } = await droppedDeposit(usdc('4.75'));

    // Mined again, and nobody claims it: the watcher's sighting credits it.
    await sendSigned(raw);
    await chain.mine(confirmations);
    const config = mergeConfig(stack.config, { deposits: { scanIntervalSeconds: 1, scanLookbackBlocks: 20 } });
    await ensureDepositScanSchedules(stack.env.client, config);
    try {
      await expect
        .poll(async () => (await balanceOf(agent)).recent_deposits[0], { timeout: 30_000, interval: 500 })
        .toMatchObject({ tx_hash: txHash, amount_usd: '4.75', status: 'credited' });
    } finally {
      await stack.env.client.schedule.getHandle('deposit-scan:base').delete();
    }
    const entries = await stack.database.prisma.ledgerEntry.findMany({
      where: { accountId: agent.agent_id, kind: 'deposit' },
    });
    expect(entries.map((entry) => entry.amount)).toEqual([4_750_000n]);
    await expectLedgerMatchesBalance(agent);
  });
});

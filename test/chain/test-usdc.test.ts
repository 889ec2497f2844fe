// The test token on a real chain: USDC's metadata and EIP-712 domain, EIP-3009 transfers by authorization in both
// signature forms (signed with viem's signTypedData, as x402's `exact` scheme signs them), refused replays.
import {
  domainSeparator,
  keccak256,
  parseEventLogs,
  parseSignature,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { anvilDevAccount, localChainClients, testUsdcAddress } from '../../src/chain/local-chain.ts';
import { testUsdc, testUsdcAbi, testUsdcDomain, transferWithAuthorizationTypes } from '../../src/chain/test-usdc.ts';
import { useLocalChain } from '../helpers/chain.ts';

const chain = useLocalChain();
const relayer = anvilDevAccount(5); // pays the gas, as a facilitator does

const read = <T>(functionName: string, args: unknown[] = [], address: Address = chain.usdcAddress) =>
  chain.publicClient.readContract({ address, abi: testUsdcAbi, functionName, args } as never) as Promise<T>;

async function authorization(from: LocalAccount, to: Address, value: bigint) {
  const { timestamp } = await chain.publicClient.getBlock();
  const message = {
    from: from.address,
    to,
    value,
    validAfter: 0n,
    validBefore: timestamp + 3600n,
    nonce: randomNonce(),
  };
  const { walletClient } = localChainClients(chain.rpcUrl, chain.chainId);
  const signature = await walletClient(from).signTypedData({
    domain: testUsdcDomain(chain.chainId, chain.usdcAddress),
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message,
  });
  return { message, signature };
}

const randomNonce = (): Hex => keccak256(toHex(`${Date.now()}-${Math.random()}`));
const argsOf = (m: Awaited<ReturnType<typeof authorization>>['message']) =>
  [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce] as const;

async function payer(amount: bigint): Promise<LocalAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.mint(account.address, amount);
  return account;
}

describe('TestUSDC', () => {
  it('is at its fixed address with USDC’s name, symbol, decimals and EIP-712 domain', async () => {
    expect(chain.usdcAddress).toBe(testUsdcAddress);
    expect(await read('name')).toBe('USD Coin');
    expect(await read('symbol')).toBe('USDC');
    expect(await read('decimals')).toBe(testUsdc.decimals);
    expect(await read('version')).toBe('2');
    expect(await read('DOMAIN_SEPARATOR')).toBe(
      domainSeparator({ domain: testUsdcDomain(chain.chainId, chain.usdcAddress) }),
    );
  });

  it('has the typehashes of Circle’s FiatToken v2', async () => {
    const typehash = (type: string) => keccak256(toHex(type));
    const fields = 'address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce';
    expect(await read('TRANSFER_WITH_AUTHORIZATION_TYPEHASH')).toBe(typehash(`TransferWithAuthorization(${fields})`));
    expect(await read('RECEIVE_WITH_AUTHORIZATION_TYPEHASH')).toBe(typehash(`ReceiveWithAuthorization(${fields})`));
    expect(await read('CANCEL_AUTHORIZATION_TYPEHASH')).toBe(
      typehash('CancelAuthorization(address authorizer,bytes32 nonce)'),
    );
  });

  it('lets only the owner mint', async () => {
    const stranger = anvilDevAccount(6);
    await expect(
      chain.publicClient.simulateContract({
        account: stranger,
        address: chain.usdcAddress,
        abi: testUsdcAbi,
        functionName: 'mint',
        args: [stranger.address, 1n],
      }),
    ).rejects.toThrow(/OwnableUnauthorizedAccount/);
  });

  describe.each(['v, r, s', 'bytes signature'] as const)('transferWithAuthorization (%s)', (form) => {
    const submit = async (auth: Awaited<ReturnType<typeof authorization>>) => {
      const { walletClient } = localChainClients(chain.rpcUrl, chain.chainId);
      const { v, r, s } = parseSignature(auth.signature);
      const request =
        form === 'v, r, s'
          ? { functionName: 'transferWithAuthorization', args: [...argsOf(auth.message), Number(v), r, s] }
          : { functionName: 'transferWithAuthorization', args: [...argsOf(auth.message), auth.signature] };
      const { request: simulated } = await chain.publicClient.simulateContract({
        account: relayer,
        address: chain.usdcAddress,
        abi: testUsdcAbi,
        ...(request as { functionName: 'transferWithAuthorization'; args: never }),
      });
      const hash = await walletClient(relayer).writeContract(simulated);
      return chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    };

    it('moves the tokens the payer signed for, once; a replay is refused', async () => {
      const from = await payer(5_000_000n);
      const to = privateKeyToAccount(generatePrivateKey()).address;
      const auth = await authorization(from, to, 1_250_000n);

      const receipt = await submit(auth);
      expect(receipt.status).toBe('success');
      const events = parseEventLogs({ abi: testUsdcAbi, logs: receipt.logs });
      expect(events.map((event) => event.eventName)).toEqual(['AuthorizationUsed', 'Transfer']);
      expect(events[0]!.args).toEqual({ authorizer: from.address, nonce: auth.message.nonce });
      expect(events[1]!.args).toEqual({ from: from.address, to, value: 1_250_000n });
      expect(await read('balanceOf', [to])).toBe(1_250_000n);
      expect(await read('authorizationState', [from.address, auth.message.nonce])).toBe(true);

      await expect(submit(auth)).rejects.toThrow(/FiatTokenV2: authorization is used or canceled/);
      expect(await read('balanceOf', [to])).toBe(1_250_000n);
    });

    it('refuses a signature by anyone but the payer, and changed terms', async () => {
      const from = await payer(5_000_000n);
      const to = privateKeyToAccount(generatePrivateKey()).address;
      const forged = await authorization(privateKeyToAccount(generatePrivateKey()), to, 1n);
      await expect(submit({ ...forged, message: { ...forged.message, from: from.address } })).rejects.toThrow(
        /FiatTokenV2: invalid signature/,
      );
      const auth = await authorization(from, to, 1n);
      await expect(submit({ ...auth, message: { ...auth.message, value: 2n } })).rejects.toThrow(
        /FiatTokenV2: invalid signature/,
      );
    });
  });

  it('refuses an expired authorization and one canceled by its signer', async () => {
    const from = await payer(1_000_000n);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const expired = await authorization(from, to, 1n);
    const args = [...argsOf({ ...expired.message, validBefore: 1n }), expired.signature] as const;
    await expect(
      chain.publicClient.simulateContract({
        account: relayer,
        address: chain.usdcAddress,
        abi: testUsdcAbi,
        functionName: 'transferWithAuthorization',
        args,
      }),
    ).rejects.toThrow(/FiatTokenV2: authorization is expired/);

    const auth = await authorization(from, to, 1n);
    const { walletClient } = localChainClients(chain.rpcUrl, chain.chainId);
    const cancel = await walletClient(from).signTypedData({
      domain: testUsdcDomain(chain.chainId, chain.usdcAddress),
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: from.address, nonce: auth.message.nonce },
    });
    const hash = await walletClient(relayer).writeContract({
      address: chain.usdcAddress,
      abi: testUsdcAbi,
      functionName: 'cancelAuthorization',
      args: [from.address, auth.message.nonce, cancel],
    });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(parseEventLogs({ abi: testUsdcAbi, logs: receipt.logs }).map((event) => event.eventName)).toEqual([
      'AuthorizationCanceled',
    ]);
    await expect(
      chain.publicClient.simulateContract({
        account: relayer,
        address: chain.usdcAddress,
        abi: testUsdcAbi,
        functionName: 'transferWithAuthorization',
        args: [...argsOf(auth.message), auth.signature],
      }),
    ).rejects.toThrow(/FiatTokenV2: authorization is used or canceled/);
  });

  it('lets receiveWithAuthorization be submitted by the payee only', async () => {
    const from = await payer(1_000_000n);
    const payee = anvilDevAccount(7);
    const { timestamp } = await chain.publicClient.getBlock();
    const message = {
      from: from.address,
      to: payee.address,
      value: 400_000n,
      validAfter: 0n,
      validBefore: timestamp + 600n,
      nonce: randomNonce(),
    };
    const { walletClient } = localChainClients(chain.rpcUrl, chain.chainId);
    const signature = await walletClient(from).signTypedData({
      domain: testUsdcDomain(chain.chainId, chain.usdcAddress),
      types: { ReceiveWithAuthorization: transferWithAuthorizationTypes.TransferWithAuthorization },
      primaryType: 'ReceiveWithAuthorization',
      message,
    });
    const call = (account: LocalAccount) =>
      chain.publicClient.simulateContract({
        account,
        address: chain.usdcAddress,
        abi: testUsdcAbi,
        functionName: 'receiveWithAuthorization',
        args: [...argsOf(message), signature],
      });
    await expect(call(relayer)).rejects.toThrow(/FiatTokenV2: caller must be the payee/);
    const { request } = await call(payee);
    const hash = await walletClient(payee).writeContract(request);
    expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await read('balanceOf', [payee.address])).toBe(400_000n);
  });
});

describe('useLocalChain', () => {
  it('deploys another token, even one named USDC, at another address', async () => {
    const other = await chain.deployOtherToken();
    expect(other).not.toBe(chain.usdcAddress);
    expect(await read('symbol', [], other)).toBe('USDC');
  });

  it('mines blocks, snapshots and reverts, and switches automine off and on', async () => {
    const start = await chain.publicClient.getBlockNumber();
    await chain.mine(3);
    expect(await chain.publicClient.getBlockNumber()).toBe(start + 3n);

    const id = await chain.snapshot();
    const to = privateKeyToAccount(generatePrivateKey()).address;
    await chain.transfer({ to, amount: 7n });
    expect(await read('balanceOf', [to])).toBe(7n);
    await chain.revert(id);
    expect(await read('balanceOf', [to])).toBe(0n);

    await chain.setAutomine(false);
    const { walletClient } = localChainClients(chain.rpcUrl, chain.chainId);
    const sender = anvilDevAccount(4);
    const hash = await walletClient(sender).writeContract({
      address: chain.usdcAddress,
      abi: testUsdcAbi,
      functionName: 'transfer',
      args: [to, 0n],
    });
    expect(await chain.publicClient.getTransactionReceipt({ hash }).catch(() => null)).toBeNull();
    await chain.mine(1);
    expect((await chain.publicClient.getTransactionReceipt({ hash })).status).toBe('success');
    await chain.setAutomine(true);
  });
});

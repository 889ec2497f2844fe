// A multisend on the test chain: TestMultisend.sol compiled with the project's solc setup (as TestUSDC is) and
// deployed by the test, so one real transaction pays several addresses in the real test token.
import { fileURLToPath } from 'node:url';
import type { Account, Address, Hash } from 'viem';
import { compileContract } from '../../src/chain/compile-contracts.ts';
import { localChainClients } from '../../src/chain/local-chain.ts';
import type { TestChain } from './chain.ts';

const source = {
  contractName: 'TestMultisend',
  sourcePath: fileURLToPath(new URL('./contracts/TestMultisend.sol', import.meta.url)),
  artifactPath: '',
  code: 'creation' as const,
};

const multisendAbi = [
  {
    type: 'function',
    name: 'send',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'token', type: 'address' },
      { name: 'recipients', type: 'address[]' },
      { name: 'amounts', type: 'uint256[]' },
    ],
    outputs: [],
  },
] as const;

/** Deploys a TestMultisend from `deployer`; `send` pays every recipient from `from`'s test USDC in one transaction. */
export async function deployMultisend(chain: TestChain, deployer: Account) {
  const { bytecode } = compileContract(source);
  const { walletClient } = localChainClients(chain.rpcUrl, chain.chainId);
  const deployment = await walletClient(deployer).deployContract({ abi: multisendAbi, bytecode: bytecode! });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: deployment, pollingInterval: 50 });
  const address = receipt.contractAddress as Address;
  return {
    address,
    async send(from: Account, payments: [Address, bigint][]): Promise<Hash> {
      await chain.approve(from, address);
      const hash = await walletClient(from).writeContract({
        address,
        abi: multisendAbi,
        functionName: 'send',
        args: [chain.usdcAddress, payments.map(([to]) => to), payments.map(([, amount]) => amount)],
      });
      const sent = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      if (sent.status !== 'success') throw new Error(`multisend ${hash} reverted`);
      return hash;
    },
  };
}

// What x402's `upto` scheme needs on chain, installed on the local chain at the addresses @x402/evm hardcodes:
// Permit2 and our own X402UptoProxy (runtime code with anvil_setCode: no deployer, nonce or block).
import { createPublicClient, createTestClient, http, type Address, type Hex } from 'viem';
import type { Logger } from '../infra/logger.ts';
import proxyArtifact from './contracts/X402UptoProxy.json' with { type: 'json' };
import { permit2Address, permit2RuntimeCode } from './permit2.ts';

/** Where @x402/evm's clients and facilitators expect the proxy (its x402UptoPermit2ProxyAddress; a test holds them equal). */
export const uptoProxyAddress: Address = '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002';
export const uptoProxyRuntimeCode = proxyArtifact.deployedBytecode as Hex;

/**
 * Installs Permit2 (patched for `chainId`) and the upto proxy unless the same code is already there (a chain
 * restarted from its state). Other code is replaced: setCode keeps the storage, so Permit2's spent nonces stay spent.
 */
export async function ensureUptoContracts(
  rpcUrl: string,
  chainId: number,
  log: Logger,
): Promise<{ installed: Address[] }> {
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ transport, cacheTime: 0 });
  const testClient = createTestClient({ mode: 'anvil', transport });
  const wanted = [
    { name: 'Permit2', address: permit2Address, code: permit2RuntimeCode(chainId) },
    { name: 'x402 upto proxy', address: uptoProxyAddress, code: uptoProxyRuntimeCode },
  ];
  const installed = await Promise.all(
    wanted.map(async ({ name, address, code }) => {
      const current = await publicClient.getCode({ address });
      if (current?.toLowerCase() === code.toLowerCase()) return undefined;
      await testClient.setCode({ address, bytecode: code });
      log.info({ address, replaced: Boolean(current && current !== '0x') }, `${name} installed`);
      return address;
    }),
  );
  return { installed: installed.filter((address) => address !== undefined) };
}

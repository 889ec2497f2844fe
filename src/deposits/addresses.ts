// An agent's deposit address is the BIP-32 child (its deposit_index) of the configured extended public key: the
// server can attribute every deposit but holds no private key. One EVM address serves every enabled chain.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { HDKey } from '@scure/bip32';
import { bytesToHex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { enabledChains } from '../chain/settings.ts';
import type { Config } from '../config/config.ts';
import type { PrismaClient } from '../db/prisma.ts';

const parsedKeys = new Map<string, HDKey>();

export function deriveDepositAddress(xpub: string, index: number): `0x${string}` {
  let parent = parsedKeys.get(xpub);
  if (!parent) {
    parent = HDKey.fromExtendedKey(xpub);
    parsedKeys.set(xpub, parent);
  }
  const child = parent.deriveChild(index);
  const uncompressed = secp256k1.Point.fromBytes(child.publicKey!).toBytes(false);
  return publicKeyToAddress(bytesToHex(uncompressed));
}

/** The agent's address on each enabled chain; none for a developer (no index). */
export function depositAddresses(
  config: Pick<Config, 'deposits' | 'chains'>,
  index: number | null,
): Record<string, string> {
  if (index === null) return {};
  const address = deriveDepositAddress(config.deposits.xpub, index);
  return Object.fromEntries(enabledChains(config.chains).map(({ chain }) => [chain, address]));
}

/** Stores the address of agents registered before addresses were stored; a no-op once every agent has one. */
export async function storeMissingDepositAddresses(prisma: PrismaClient, xpub: string): Promise<number> {
  const agents = await prisma.account.findMany({
    where: { depositAddress: null, depositIndex: { not: null } },
    select: { id: true, depositIndex: true },
  });
  for (const agent of agents) {
    const depositAddress = deriveDepositAddress(xpub, agent.depositIndex ?? 0).toLowerCase();
    await prisma.account.update({ where: { id: agent.id }, data: { depositAddress } });
  }
  return agents.length;
}

/** The agents these deposit addresses belong to (lowercase address → account id), in one query. */
export async function agentsByDepositAddress(prisma: PrismaClient, addresses: string[]): Promise<Map<string, string>> {
  const agents = await prisma.account.findMany({
    where: { depositAddress: { in: [...new Set(addresses.map((address) => address.toLowerCase()))] } },
    select: { id: true, depositAddress: true },
  });
  return new Map(agents.flatMap((agent) => (agent.depositAddress ? [[agent.depositAddress, agent.id]] : [])));
}

// Where other processes (genctl) find the local chain that `npm start` runs: <DATA_DIR>/anvil/chain.json, written
// once the chain is up and removed when it stops.
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { chains } from '../domain/values.ts';
import { readAnnouncement, removeAnnouncement, writeAnnouncement } from '../infra/announcement-file.ts';

const localChainInfoSchema = z.object({
  rpcUrl: z.url({ protocol: /^https?$/ }),
  chainId: z.number().int().positive(),
  usdcAddress: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  /** The chain name the gateway serves it as (LOCAL_CHAIN_NAME). */
  chain: z.enum(chains),
  /** anvil's process id, for operators and for tests that check it is gone after a stop. */
  pid: z.number().int().positive().optional(),
});

export type LocalChainInfo = Omit<z.infer<typeof localChainInfoSchema>, 'usdcAddress'> & {
  usdcAddress: `0x${string}`;
};

export const localChainFile = (dataDir: string) => join(resolve(dataDir), 'anvil', 'chain.json');

export const writeLocalChainFile = (dataDir: string, info: LocalChainInfo) =>
  writeAnnouncement(localChainFile(dataDir), info);

export const removeLocalChainFile = (dataDir: string) => removeAnnouncement(localChainFile(dataDir));

/** The local chain `npm start` announced under this DATA_DIR; undefined when it has written none. */
export async function readLocalChainFile(dataDir: string): Promise<LocalChainInfo | undefined> {
  const info = await readAnnouncement(localChainFile(dataDir), localChainInfoSchema, 'a local chain description');
  return info as LocalChainInfo | undefined;
}

// Where other processes (genctl) find the local chain that `npm start` runs: <DATA_DIR>/anvil/chain.json, written
// once the chain is up and removed when it stops.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { chains } from '../domain/values.ts';

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

export async function writeLocalChainFile(dataDir: string, info: LocalChainInfo): Promise<string> {
  const file = localChainFile(dataDir);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(info, null, 2)}\n`);
  return file;
}

export async function removeLocalChainFile(dataDir: string): Promise<void> {
  await rm(localChainFile(dataDir), { force: true });
}

/** The local chain `npm start` announced under this DATA_DIR; undefined when it has written none. */
export async function readLocalChainFile(dataDir: string): Promise<LocalChainInfo | undefined> {
  let text: string;
  try {
    text = await readFile(localChainFile(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed;
  try {
    parsed = localChainInfoSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) throw new Error(`${localChainFile(dataDir)} is not a local chain description`);
  return parsed.data as LocalChainInfo;
}

// What a whole service started by a test (`npm start`, `npm run cluster`) needs to keep clear of every other one: a
// scratch DATA_DIR, free ports, and none of the caller's database, Temporal or chain settings.
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

/** `prefix` names the directory; `portSettings` are the layout's own listeners, each given a free port. */
export async function scratchServiceEnv(prefix: string, portSettings: string[]): Promise<Record<string, string>> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  // PostgreSQL runs as the `postgres` user, which must reach its data directory.
  await chmod(dataDir, 0o755);
  const ports: Record<string, string> = {};
  for (const setting of ['PORT', 'EMBEDDED_POSTGRES_PORT', 'TEMPORAL_UI_PORT', ...portSettings])
    ports[setting] = String(await freePort());
  return {
    DATA_DIR: dataDir,
    ...ports,
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    BASE_RPC_URL: '',
    POLYGON_RPC_URL: '',
    ETHEREUM_RPC_URL: '',
  };
}

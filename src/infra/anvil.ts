// Foundry's anvil (a local EVM chain, from its per-platform npm package), run as a child process we own.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Logger } from './logger.ts';
import { unwatchChild, watchChild } from './watchdog.ts';

export interface Anvil {
  rpcUrl: string;
  chainId: number;
  pid: number;
  /** SIGTERM (anvil dumps its state file, if any, then exits), SIGKILL after `stopTimeoutMs`. */
  stop(): Promise<void>;
}

export interface AnvilOptions {
  /** Loaded at start when it exists, written on a graceful stop (`--state`). */
  stateFile?: string;
  /** Also write the state file every so many seconds (`--state-interval`), so a crash loses at most that much. */
  stateIntervalSeconds?: number;
  /** Interval mining; without it every transaction is mined at once (automine). */
  blockTimeSeconds?: number;
  chainId?: number;
  log: Logger;
  startTimeoutMs?: number;
  stopTimeoutMs?: number;
}

export const anvilDefaultChainId = 31337;

/** The platform package's binary itself: the `.bin` wrapper is a Node process that would outlive a kill of its pid. */
export function anvilBinaryPath(): string {
  const cpu = arch() === 'x64' ? 'amd64' : arch();
  const name = platform() === 'win32' ? 'anvil.exe' : 'anvil';
  const packageName = `@foundry-rs/anvil-${platform()}-${cpu}`;
  try {
    return createRequire(import.meta.url).resolve(`${packageName}/bin/${name}`);
  } catch (error) {
    throw new Error(
      `anvil for this platform is not installed (npm package ${packageName}; this build pins linux-amd64). ` +
        'Install that package, or set a chain RPC URL (BASE_RPC_URL, …) to use a node of your own.',
      { cause: error },
    );
  }
}

const listeningLine = /Listening on (\S+):(\d+)/;

function waitUntilListening(child: ChildProcess, timeoutMs: number, stderrTail: () => string): Promise<number> {
  return new Promise((done, fail) => {
    let buffered = '';
    const finish = (outcome: () => void) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      buffered = (buffered + chunk.toString()).slice(-4_096);
      const match = listeningLine.exec(buffered);
      if (match) finish(() => done(Number(match[2])));
    };
    const onExit = (code: number | null, signal: string | null) =>
      finish(() => fail(new Error(`anvil exited during start-up (code ${code}, signal ${signal}): ${stderrTail()}`)));
    const onError = (error: Error) => finish(() => fail(new Error(`anvil could not be started: ${error.message}`)));
    const timer = setTimeout(
      () => finish(() => fail(new Error(`anvil did not start listening within ${timeoutMs} ms: ${stderrTail()}`))),
      timeoutMs,
    );
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

function stopChild(child: ChildProcess, exited: Promise<void>, graceMs: number): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
  child.kill('SIGTERM');
  return exited.finally(() => clearTimeout(force));
}

export async function startAnvil(options: AnvilOptions): Promise<Anvil> {
  const log = options.log.child({ component: 'anvil' });
  const chainId = options.chainId ?? anvilDefaultChainId;
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId)];
  if (options.blockTimeSeconds) args.push('--block-time', String(options.blockTimeSeconds));
  if (options.stateFile) {
    const stateFile = resolve(options.stateFile);
    // anvil writes the file on exit but does not create its directory (the dump then fails, logged only by anvil).
    await mkdir(dirname(stateFile), { recursive: true });
    args.push('--state', stateFile);
    if (options.stateIntervalSeconds) args.push('--state-interval', String(options.stateIntervalSeconds));
    log.info({ stateFile, loaded: existsSync(stateFile) }, 'anvil state file');
  }
  const child = spawn(anvilBinaryPath(), args, {
    // Its own process group: Ctrl-C must not stop the chain before the service has drained; we stop it last.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => log.debug(chunk.toString().trim()));
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2_000);
    log.warn(chunk.toString().trim());
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // In its own process group nothing else stops it if this process dies first: ask it to stop (and dump its state)
  // on the way out unless stop() already did, or let the watchdog ask if this process dies without a way out.
  const stopOnExit = () => child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  if (child.pid !== undefined) watchChild(child.pid, 'SIGTERM');
  void exited.then(() => {
    process.removeListener('exit', stopOnExit);
    if (child.pid !== undefined) unwatchChild(child.pid);
  });
  child.once('exit', (code, signal) => log.info({ code, signal }, 'anvil exited'));

  const stopTimeoutMs = options.stopTimeoutMs ?? 5_000;
  let port: number;
  try {
    port = await waitUntilListening(child, options.startTimeoutMs ?? 10_000, () => stderr.trim() || '(no output)');
  } catch (error) {
    await stopChild(child, exited, stopTimeoutMs);
    throw error;
  }
  const rpcUrl = `http://127.0.0.1:${port}`;
  log.info({ rpcUrl, chainId, pid: child.pid }, 'anvil listening');
  return {
    rpcUrl,
    chainId,
    pid: child.pid!,
    stop: () => stopChild(child, exited, stopTimeoutMs),
  };
}

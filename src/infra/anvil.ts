// Foundry's anvil (a local EVM chain, from its per-platform npm package), run as a child process we own.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Logger } from './logger.ts';
import { readyOrStopped, startSupervised, untilOutput } from './processes/supervised-process.ts';

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
  const stopTimeoutMs = options.stopTimeoutMs ?? 5_000;
  // Its own process group: Ctrl-C must not stop the chain before the service has drained; we stop it last. In its
  // own group nothing else stops it if this process dies first: ask it to stop (and dump its state) on the way out
  // unless stop() already did, or let the watchdog ask if this process dies without a way out.
  const chain = await startSupervised({
    name: 'anvil',
    command: anvilBinaryPath(),
    args,
    exitSignal: 'SIGTERM',
    onOutput: (text, stream) => (stream === 'stdout' ? log.debug(text.trim()) : log.warn(text.trim())),
  });
  void chain.exited.then((code) => log.info({ code, signal: chain.child.signalCode }, 'anvil exited'));
  const listening = untilOutput(chain, listeningLine, {
    timeoutMs: options.startTimeoutMs ?? 10_000,
    what: 'start listening',
    stream: 'stdout',
  });
  const [, , port] = (await readyOrStopped(chain, listening, stopTimeoutMs)) as RegExpExecArray;
  const rpcUrl = `http://127.0.0.1:${port}`;
  log.info({ rpcUrl, chainId, pid: chain.pid }, 'anvil listening');
  return {
    rpcUrl,
    chainId,
    pid: chain.pid,
    stop: () => chain.stop(stopTimeoutMs),
  };
}

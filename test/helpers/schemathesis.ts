// Schemathesis (PyPI, installed by `node scripts/setup.mjs --fuzz`) run against a served OpenAPI document: every
// operation fuzzed with a fixed seed and a few examples per operation and phase, every answer checked against it.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { schemathesisDir } from '../../src/infra/tools.ts';

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
const configFile = join(import.meta.dirname, '..', 'api', 'schemathesis.toml');

// Where x402 is on (npm start, the cluster), a POST /generations without a key is offered a payment whatever its body
// (x402's discovery probes send none): 402, which Schemathesis's check of requests without authentication (401 or 403
// only) cannot know, and a check named by --checks cannot be turned off for one operation. It runs where x402 is off
// (test/api/openapi-fuzz.test.ts).
const x402Exempt = 'ignored_auth';
export const schemathesisInstalled = existsSync(join(schemathesisDir, 'schemathesis'));

export interface FuzzRun {
  code: number;
  output: string;
  /** Test cases Schemathesis generated and sent. */
  cases: number;
}

/** Fuzzes the OpenAPI document served at `url` with `key`; `extra` narrows or adds options. */
export async function schemathesis(
  url: string,
  key: string,
  extra: string[] = [],
  { x402 = false }: { x402?: boolean } = {},
): Promise<FuzzRun> {
  const workDir = await mkdtemp(join(tmpdir(), 'gateway-fuzz-'));
  const chosen = x402 ? checks.filter((check) => check !== x402Exempt) : checks;
  try {
    // One worker: with two, Hypothesis parses lambdas' source on both threads at once, which CPython 3.11.7's ast
    // module does not survive ("AST constructor recursion depth mismatch", a Runtime Error of the run).
    const args = [
      ...['-m', 'schemathesis.cli', '--config-file', configFile, 'run', `${url}/api/v1/openapi.json`],
      ...['--header', `Authorization: Bearer ${key}`],
      ...['--checks', chosen.join(','), '--max-examples', '20', '--seed', '1', '--workers', '1'],
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

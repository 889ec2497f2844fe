// The OpenAPI contract on the cluster: Schemathesis fuzzes every operation through Caddy, each request landing on
// either api process, with the store, Temporal and PostgreSQL of the scale-out layout behind them. No answer may be a
// 5xx, and every answer must be one the document declares, in the shape it declares (as on the embedded default:
// test/api/openapi-fuzz.test.ts), here with x402 on, as the cluster runs it with its local chain.
import { beforeAll, describe, expect, it } from 'vitest';
import { credit } from '../../src/ledger/ledger.ts';
import { createAgentWithKey } from '../helpers/accounts.ts';
import { schemathesis } from '../helpers/schemathesis.ts';
import { useClusterDeveloper, useSharedCluster } from './shared-cluster.ts';

const cluster = useSharedCluster();
const developer = useClusterDeveloper(cluster, 1_000_000_000n);
let agentKey: string;
beforeAll(async () => {
  const agent = await createAgentWithKey(cluster.prisma);
  agentKey = agent.apiKey.key;
  await credit(cluster.prisma, {
    accountId: agent.agentId,
    amount: 1_000_000_000n,
    kind: 'adjustment',
    idempotencyKey: `topup:${agent.agentId}`,
  });
});

describe('OpenAPI contract on the cluster (Schemathesis)', () => {
  it('every operation, with a developer key', async () => {
    const run = await schemathesis(cluster.app.url, developer.key, [], { x402: true });
    expect(run.code, run.output).toBe(0);
    // Every operation but revokeKey, which the settings leave out (test/api/schemathesis.toml).
    expect(run.output).toMatch(/Operations:\s+36 selected \/ 37 total/);
    expect(run.cases).toBeGreaterThan(300);
  });

  it('the agent endpoints, with an agent key', async () => {
    const run = await schemathesis(
      cluster.app.url,
      agentKey,
      ['--include-path-regex', '^/agents/(balance|deposit|quote|webhook)$'],
      { x402: true },
    );
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Operations:\s+4 selected/);
    expect(run.cases).toBeGreaterThan(100);
  });
});

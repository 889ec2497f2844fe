// Schemathesis (PyPI, installed by `node scripts/setup.mjs --fuzz`) fuzzes every operation of the served OpenAPI
// document against the whole gateway (real PostgreSQL, Temporal and worker): no answer may be a 5xx, and every
// answer must be one the document declares, in the shape it declares. Bounded: a fixed seed and a few examples per
// operation and phase keep both runs near half a minute on two cores.
import { beforeAll, describe, expect, it } from 'vitest';
import { credit } from '../../src/ledger/ledger.ts';
import { createAgentWithKey } from '../helpers/accounts.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { schemathesis, schemathesisInstalled } from '../helpers/schemathesis.ts';

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

describe.skipIf(!schemathesisInstalled)('OpenAPI fuzz (Schemathesis)', () => {
  it('every operation, with a developer key: no server error, no answer outside the document', async () => {
    const run = await schemathesis(gateway.app.url, developer.key);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Operations:\s+36 selected \/ 37 total/);
    expect(run.cases).toBeGreaterThan(300);
  }, 150_000);

  it('the agent endpoints, with an agent key', async () => {
    const run = await schemathesis(gateway.app.url, agentKey, [
      '--include-path-regex',
      '^/agents/(balance|deposit|quote|webhook)$',
    ]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Operations:\s+4 selected \/ 37 total/);
    expect(run.cases).toBeGreaterThan(100);
  }, 150_000);
});

// The self-service bench's account: a funded developer with its default key, a key with a spend policy and a sub-key
// made by it, and a long task history (ended tasks spread over ~90 days, several models, types and statuses), written
// by SQL in chunks, with the key_spend and usage_hourly rows their settlements would have left.
import { createDeveloper } from '../src/accounts/accounts.ts';
import { issueApiKey, type IssuedKey } from '../src/accounts/api-keys.ts';
import type { KeyPolicy } from '../src/accounts/key-policy.ts';
import type { PrismaClient } from '../src/db/prisma.ts';
import { Prisma } from '../src/generated/prisma/client.ts';
import { loadCatalog } from '../src/catalog/catalog.ts';
import { priceRequest } from '../src/catalog/pricing.ts';
import { pricingUnitNames, pricingUnits } from '../src/catalog/pricing-units.ts';
import { usageCountColumns } from '../src/generations/usage-aggregates.ts';
import { credit } from '../src/ledger/ledger.ts';

/** Catalog models that take a prompt, each with how long one task of it takes (seconds). */
const seededRuns = [
  { model: 'fal/flux-schnell', type: 'text-to-image', seconds: 2 },
  { model: 'fal/flux-dev', type: 'text-to-image', seconds: 6 },
  { model: 'fal/seedream-4', type: 'text-to-image', seconds: 8 },
  { model: 'fal/veo-3-fast', type: 'text-to-video', seconds: 90 },
  { model: 'fal/hailuo-02', type: 'text-to-video', seconds: 120 },
  { model: 'openai/tts-1', type: 'text-to-audio', seconds: 3 },
  { model: 'openai/kimi-k2', type: 'text-to-text', seconds: 4 },
  { model: 'fal/minimax-music-1.5', type: 'text-to-music', seconds: 40 },
];
const catalog = loadCatalog();
/** Each with what its task costs (micro-USD) and counts in its pricing units, as the catalog prices a short prompt. */
const seededModels = seededRuns.map((run) => {
  const model = catalog.get(run.model)!;
  const price = priceRequest(model, { prompt: 'bench prompt 123456' });
  return { ...run, costMicros: Number(price.micros), units: pricingUnits(model, price.breakdown) };
});
const seededModelIds = seededModels.map((entry) => entry.model);

const chunkRows = 100_000;
const historyDays = 90;
/** As OUTPUT_RETENTION_DAYS's default: older tasks' outputs were deleted by the sweep, as it would have left them. */
const retentionDays = 30;

export interface SeededAccount {
  accountId: string;
  /** The account's first key: every scope, no policy (sees every task of the account). */
  defaultKey: IssuedKey;
  /** A key with a budget, a models allowlist and a max cost per task: sees only its own tasks. */
  policyKey: IssuedKey;
  /** Made by the policy key, with a narrower policy of its own: its admissions check both. */
  subKey: IssuedKey;
  /** The id of the `n`th newest seeded task (1 is the newest). */
  taskId(n: number): string;
}

async function seedKeys(prisma: PrismaClient) {
  const { developerId: accountId, apiKey: defaultKey } = await createDeveloper(prisma, {
    name: 'self-service bench',
    tier: 'enterprise',
  });
  await credit(prisma, { accountId, amount: 10n ** 13n, kind: 'adjustment', idempotencyKey: `${accountId}:bench` });
  const policy = (budgetMicros: bigint): KeyPolicy => ({
    budget: { amountMicros: budgetMicros, window: 'month' },
    models: [...seededModelIds, 'local/lanczos'],
    maxCostPerTaskMicros: 5_000_000n,
  });
  const key = { accountId, kind: 'developer' as const };
  const policyKey = await issueApiKey(prisma, { ...key, name: 'policy', policy: policy(10n ** 12n) });
  const subKey = await issueApiKey(prisma, {
    ...key,
    name: 'sub-key',
    policy: policy(10n ** 11n),
    parentId: policyKey.id,
  });
  return { accountId, defaultKey, policyKey, subKey };
}

/** The seeded task `n` places from the newest: ids ascend with creation time, as the oldest are inserted first. */
const seededTaskId = (total: number, n: number) => `gen_bench${String(total + 1 - n).padStart(17, '0')}`;

/**
 * Tasks `from`..`to` places from the newest (one every 90 days / `total` back from `now`), the oldest first (each
 * index then grows at its end): 2 in 10 the policy key's, 1 in 10 its sub-key's, the rest the default key's; 1 in 13
 * failed (every other of those a cancel), the rest completed with one output.
 */
async function insertTaskChunk(
  prisma: PrismaClient,
  seeded: { accountId: string; keyIds: string[]; now: Date; total: number },
  from: number,
  to: number,
) {
  const spacingSeconds = (historyDays * 86_400) / seeded.total;
  const [models, types] = [seededModels.map((m) => m.model), seededModels.map((m) => m.type)];
  const [costs, seconds] = [seededModels.map((m) => m.costMicros), seededModels.map((m) => m.seconds)];
  await prisma.$executeRaw`
    INSERT INTO tasks (id, account_id, api_key_id, type, model, status, request, prompt, output, outputs, error,
      cost_reserved, cost_charged, created_at, started_at, completed_at, updated_at, served_by, outputs_deleted_at)
    SELECT t.id, ${seeded.accountId}, (${seeded.keyIds}::text[])[1 + (i / 8) % 10], t.type, t.model,
      CASE WHEN t.failed THEN 'failed' ELSE 'completed' END::"TaskStatus",
      jsonb_build_object('type', t.type, 'model', t.model, 'prompt', 'bench prompt ' || i), 'bench prompt ' || i,
      CASE WHEN NOT t.failed THEN 'http://127.0.0.1/files/' || t.id || '/output.bin' END,
      CASE WHEN t.failed THEN '{}'::text[] ELSE ARRAY['http://127.0.0.1/files/' || t.id || '/output.bin'] END,
      CASE WHEN t.failed AND i % 26 = 0 THEN 'cancelled' WHEN t.failed THEN 'The provider could not generate it' END,
      t.cost, CASE WHEN NOT t.failed THEN t.cost END, t.created, t.created + interval '1 second', t.ended, t.ended,
      CASE WHEN NOT t.failed THEN split_part(t.model, '/', 1) END,
      CASE WHEN t.ended < ${seeded.now}::timestamptz - make_interval(days => ${retentionDays})
        THEN t.ended + make_interval(days => ${retentionDays}) END
    FROM generate_series(${to}::int, ${from}::int, -1) AS i,
      LATERAL (SELECT 'gen_bench' || lpad((${seeded.total + 1}::int - i)::text, 17, '0') AS id, i % 13 = 0 AS failed,
        (${models}::text[])[1 + i % 8] AS model, (${types}::text[])[1 + i % 8] AS type,
        (${costs}::bigint[])[1 + i % 8] AS cost, (${seconds}::int[])[1 + i % 8] AS seconds,
        ${seeded.now}::timestamptz - make_interval(secs => i * ${spacingSeconds}::float8) AS created) AS base,
      LATERAL (SELECT base.*, base.created + make_interval(secs => base.seconds) AS ended) AS t`;
}

/**
 * What the seeded tasks' settlements left in key_spend, usage_hourly, usage_daily and usage_daily_totals: each keyed task's charge on its day, for
 * its key and the key that made it; each ended task in the row of its account, hour ended, key, model and type.
 */
async function insertAggregates(prisma: PrismaClient, accountId: string) {
  await prisma.$executeRaw`
    INSERT INTO key_spend (api_key_id, day, charged, reserved)
    SELECT chain.id, (t.created_at AT TIME ZONE 'UTC')::date, sum(coalesce(t.cost_charged, 0))::bigint, 0
    FROM tasks t JOIN api_keys k ON k.id = t.api_key_id, LATERAL (VALUES (k.id), (k.parent_id)) AS chain(id)
    WHERE t.account_id = ${accountId} AND chain.id IS NOT NULL
    GROUP BY 1, 2`;
  // Each model's units per completed task, as a VALUES row: (model, requests, images, …).
  const perTask = Prisma.join(
    seededModels.map(
      (m) =>
        Prisma.sql`(${m.model}, ${Prisma.join(pricingUnitNames.map((unit) => Prisma.sql`${m.units[unit] ?? 0}::bigint`))})`,
    ),
  );
  const units = Prisma.raw(pricingUnitNames.join(', '));
  const unitsTimesCompleted = Prisma.raw(pricingUnitNames.map((unit) => `m.${unit} * g.completed`).join(', '));
  await prisma.$executeRaw`
    INSERT INTO usage_hourly (account_id, hour, api_key_id, model, type, completed, failed, cancelled, cost, refunded,
      ${units})
    SELECT g.*, ${unitsTimesCompleted}
    FROM (
      SELECT account_id, date_trunc('hour', completed_at, 'UTC') AS hour, coalesce(api_key_id, '') AS key, model, type,
        count(*) FILTER (WHERE status = 'completed') AS completed,
        count(*) FILTER (WHERE status = 'failed' AND error IS DISTINCT FROM 'cancelled') AS failed,
        count(*) FILTER (WHERE status = 'failed' AND error = 'cancelled') AS cancelled,
        sum(coalesce(cost_charged, 0))::bigint AS cost, sum(cost_reserved - coalesce(cost_charged, 0))::bigint AS refunded
      FROM tasks WHERE account_id = ${accountId} GROUP BY 1, 2, 3, 4, 5
    ) AS g JOIN (VALUES ${perTask}) AS m (model, ${units}) ON m.model = g.model`;
  const summed = Prisma.raw(usageCountColumns.map((column) => `sum(${column})`).join(', '));
  await prisma.$executeRaw`
    INSERT INTO usage_daily (account_id, day, api_key_id, model, type, ${Prisma.raw(usageCountColumns.join(', '))})
    SELECT account_id, (hour AT TIME ZONE 'UTC')::date, api_key_id, model, type, ${summed}
    FROM usage_hourly WHERE account_id = ${accountId} GROUP BY 1, 2, 3, 4, 5`;
  await prisma.$executeRaw`
    INSERT INTO usage_daily_totals (account_id, day, model, type, ${Prisma.raw(usageCountColumns.join(', '))})
    SELECT account_id, day, model, type, ${summed}
    FROM usage_daily WHERE account_id = ${accountId} GROUP BY 1, 2, 3, 4`;
}

/**
 * Runs `load` with the tasks table's triggers off and its secondary indexes dropped, then builds them again from their
 * own definitions (one sorted build each is several times faster than keeping six up to date row by row). Off: the
 * trigger that writes a task_events row per task (ended tasks' events are never read back by the history or usage
 * reads) and the foreign-key checks (every row names the account and keys made just before).
 */
async function bulkLoadTasks(prisma: PrismaClient, load: () => Promise<void>) {
  const indexes = await prisma.$queryRaw<{ name: string; definition: string }[]>`
    SELECT indexname AS name, indexdef AS definition FROM pg_indexes
    WHERE schemaname = current_schema() AND tablename = 'tasks' AND indexname <> 'tasks_pkey'`;
  await prisma.$executeRaw`ALTER TABLE tasks DISABLE TRIGGER ALL`;
  for (const { name } of indexes) await prisma.$executeRawUnsafe(`DROP INDEX "${name}"`);
  try {
    await load();
  } finally {
    for (const { definition } of indexes) await prisma.$executeRawUnsafe(definition);
    await prisma.$executeRaw`ALTER TABLE tasks ENABLE TRIGGER ALL`;
  }
}

/** The account, its keys and `total` tasks with their key_spend and usage_hourly rows; `progress` says how far it has got. */
export async function seedTaskHistory(
  prisma: PrismaClient,
  total: number,
  progress: (line: string) => void,
): Promise<SeededAccount> {
  const keys = await seedKeys(prisma);
  const keyIds = [keys.policyKey.id, keys.policyKey.id, keys.subKey.id, ...Array(7).fill(keys.defaultKey.id)];
  const seeded = { accountId: keys.accountId, keyIds, now: new Date(), total };
  const started = performance.now();
  const seconds = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  await bulkLoadTasks(prisma, async () => {
    for (let to = total; to >= 1; to -= chunkRows) {
      await insertTaskChunk(prisma, seeded, Math.max(1, to - chunkRows + 1), to);
      progress(`seeded ${(total - Math.max(0, to - chunkRows)).toLocaleString('en')} tasks (${seconds()})`);
    }
  });
  await insertAggregates(prisma, keys.accountId);
  progress(`indexes built, key spend and hourly usage summed (${seconds()})`);
  // As a table that has lived with its rows: statistics, and the visibility map and hint bits the first reads (and
  // an autovacuum during the measurement) would otherwise write.
  await prisma.$executeRaw`VACUUM (ANALYZE) tasks, key_spend, usage_hourly, usage_daily, usage_daily_totals`;
  await prisma.$executeRaw`CHECKPOINT`;
  progress(`vacuumed and checkpointed (${seconds()})`);
  return { ...keys, taskId: (n) => seededTaskId(total, n) };
}

// genctl tasks list|show: the real command line against a test database holding tasks admitted, completed and failed
// through the services the workflow uses (one paid with x402), of three accounts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import type { GenerationRequest } from '../../src/domain/generation-request.ts';
import { requestHash } from '../../src/generations/request.ts';
import { writeRuntimeFile } from '../../src/runtime-file.ts';
import { newId } from '../../src/domain/ids.ts';
import { walletAccountId } from '../../src/payments/methods/x402/paid-tasks.ts';
import { admitTask, completeTask, failTask, markProcessing } from '../../src/generations/tasks.ts';
import { paymentMethods } from '../../src/payments/methods/registered.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createPaidTaskRow } from '../helpers/task-rows.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { runGenctl } from '../helpers/genctl.ts';

let database: TestDatabase;
let dataDir: string;
const genctl = (...args: string[]) => runGenctl({ DATABASE_URL: database.url, DATA_DIR: dataDir }, args);

const lanczos = (extra: Partial<GenerationRequest> = {}): GenerationRequest => ({
  type: 'upscale',
  model: 'local/lanczos',
  image_url: 'https://inputs.test/a.png',
  ...extra,
});
const esrgan: GenerationRequest = {
  type: 'upscale',
  model: 'replicate/real-esrgan',
  image_url: 'https://inputs.test/b.png',
  resolution: '4x',
};
const longError = `could not download https://inputs.test/b.png: HTTP 404 ${'x'.repeat(80)}`;
const payer = '0x00000000000000000000000000000000000000aa';

let developer: string;
let agent: string;
const wallet = walletAccountId(payer);
/** Oldest first: x402 (queued, wallet), completed, failed (developer), queued (agent), processing (developer). */
const ids = { paid: '', completed: '', failed: '', queued: '', processing: '' };
const createdAt = (second: number) => new Date(`2026-11-20T10:00:0${second}.000Z`);

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(join(tmpdir(), 'genctl-tasks-'));
  const { prisma } = database;
  developer = await createFundedAccount(prisma, { deposit: 10_000_000n });
  agent = await createFundedAccount(prisma, { kind: 'agent', deposit: 5_000_000n });
  const admit = async (accountId: string, request: GenerationRequest, costMicros: bigint, key: string | null) => {
    const taskId = newId('gen');
    await admitTask(prisma, { taskId, accountId, request, costMicros, idempotencyKey: key });
    return taskId;
  };

  ids.paid = (await createPaidTaskRow(prisma, payer, lanczos())).id;
  // Two outputs reserved, one delivered: charged for one (the flat 0.0005), the rest released.
  ids.completed = await admit(developer, lanczos({ num_outputs: 2 }), 1_000n, 'order-1');
  await markProcessing(prisma, ids.completed);
  await completeTask(
    prisma,
    loadCatalog().get('local/lanczos')!,
    {
      taskId: ids.completed,
      outputs: ['http://localhost:8080/files/out-1.png'],
      servedBy: 'local',
    },
    paymentMethods.heldPaymentRules,
  );
  ids.failed = await admit(developer, esrgan, 4_000n, null);
  await failTask(prisma, { taskId: ids.failed, error: longError }, paymentMethods.heldPaymentRules);
  ids.queued = await admit(agent, lanczos(), 500n, null);
  ids.processing = await admit(developer, esrgan, 4_000n, null);
  await markProcessing(prisma, ids.processing);
  // Distinct creation times, so newest-first is one order.
  for (const [second, id] of Object.values(ids).entries())
    await prisma.task.update({ where: { id }, data: { createdAt: createdAt(second + 1) } });
});
afterAll(async () => {
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const listed = async (...args: string[]) => {
  const result = await genctl('tasks', 'list', ...args, '--json');
  expect(result.code, result.stderr).toBe(0);
  return result.json.tasks.map((task: { id: string }) => task.id);
};

describe('genctl tasks list', () => {
  it('lists every account’s tasks newest first, or of one account, or in one status', async () => {
    expect(await listed()).toEqual([ids.processing, ids.queued, ids.failed, ids.completed, ids.paid]);
    expect(await listed('--account', developer)).toEqual([ids.processing, ids.failed, ids.completed]);
    expect(await listed('--status', 'failed')).toEqual([ids.failed]);
    expect(await listed('--status', 'queued')).toEqual([ids.queued, ids.paid]);
  });

  it('narrows by model, by several filters at once, and to --limit', async () => {
    expect(await listed('--model', 'local/lanczos')).toEqual([ids.queued, ids.completed, ids.paid]);
    expect(await listed('--limit', '2')).toEqual([ids.processing, ids.queued]);
    expect(await listed('--account', developer, '--model', 'replicate/real-esrgan', '--status', 'processing')).toEqual([
      ids.processing,
    ]);
    expect(await listed('--account', 'dev_nobody')).toEqual([]);
  });

  it('prints each task as JSON with exact money, and one line each as text', async () => {
    const all = await genctl('tasks', 'list', '--json');
    const byId = Object.fromEntries(all.json.tasks.map((task: { id: string }) => [task.id, task]));
    const completedRow = await database.prisma.task.findUniqueOrThrow({ where: { id: ids.completed } });
    expect(byId[ids.completed]).toEqual({
      id: ids.completed,
      account_id: developer,
      type: 'upscale',
      model: 'local/lanczos',
      status: 'completed',
      cost_usd: '0.0005',
      created_at: '2026-11-20T10:00:02.000Z',
      completed_at: completedRow.completedAt!.toISOString(),
      served_by: 'local',
      replay_of: null,
      error: null,
    });
    expect(byId[ids.failed]).toMatchObject({ status: 'failed', cost_usd: '0.00', error: longError, served_by: null });
    expect(byId[ids.processing]).toMatchObject({ status: 'processing', cost_usd: '0.004', completed_at: null });

    const text = await genctl('tasks', 'list');
    expect(text.code, text.stderr).toBe(0);
    // Aligned columns: the wallet's id is the longest account, replicate/real-esrgan the longest model.
    const account = (id: string) => id.padEnd(wallet.length);
    expect(text.stdout).toBe(
      [
        `${ids.processing}  ${account(developer)}  replicate/real-esrgan  processing  0.004 USD   2026-11-20T10:00:05.000Z`,
        `${ids.queued}  ${account(agent)}  local/lanczos          queued      0.0005 USD  2026-11-20T10:00:04.000Z`,
        `${ids.failed}  ${account(developer)}  replicate/real-esrgan  failed      0.00 USD    2026-11-20T10:00:03.000Z  error: ${longError.slice(0, 59)}…`,
        `${ids.completed}  ${account(developer)}  local/lanczos          completed   0.0005 USD  2026-11-20T10:00:02.000Z  served by local`,
        `${ids.paid}  ${wallet}  local/lanczos          queued      0.0005 USD  2026-11-20T10:00:01.000Z`,
        '',
      ].join('\n'),
    );
    expect((await genctl('tasks', 'list', '--account', 'dev_nobody')).stdout).toBe('No tasks.\n');
  });

  it('refuses a bad --status or --limit as a usage error (exit 2)', async () => {
    const status = await genctl('tasks', 'list', '--status', 'done');
    expect(status).toMatchObject({
      code: 2,
      stderr: 'genctl: --status must be one of queued, processing, completed, failed\n',
    });
    expect((await genctl('tasks', 'list', '--limit', '0')).code).toBe(2);
  });
});

describe('genctl tasks show', () => {
  it('shows a completed task as GET /generations/{id} does, with its account, money, ledger and workflow', async () => {
    const row = await database.prisma.task.findUniqueOrThrow({ where: { id: ids.completed } });
    const ledger = await database.prisma.ledgerEntry.findMany({
      where: { taskId: ids.completed },
      orderBy: { id: 'asc' },
    });
    const shown = await genctl('tasks', 'show', ids.completed, '--json');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json).toEqual({
      task: {
        id: ids.completed,
        type: 'upscale',
        model: 'local/lanczos',
        status: 'completed',
        created_at: '2026-11-20T10:00:02.000Z',
        updated_at: row.updatedAt.toISOString(),
        completed_at: row.completedAt!.toISOString(),
        started_at: row.startedAt!.toISOString(),
        num_outputs: 2,
        output: 'http://localhost:8080/files/out-1.png',
        outputs: ['http://localhost:8080/files/out-1.png'],
        cost: 0.0005,
        served_by: 'local',
        outputs_expire_at: new Date(row.completedAt!.getTime() + 30 * 86_400_000).toISOString(),
        usage: { requests: 1 },
      },
      account_id: developer,
      account_kind: 'developer',
      idempotency_key: 'order-1',
      request_hash: requestHash(lanczos({ num_outputs: 2 })),
      reserved_usd: '0.001',
      charged_usd: '0.0005',
      served_by: 'local',
      replay_of: null,
      replayed_by: null,
      outputs_deleted_at: null,
      payment: null,
      ledger: [
        {
          kind: 'reserve',
          account_id: developer,
          amount_usd: '0.00',
          reserved_delta_usd: '0.001',
          idempotency_key: `${ids.completed}:reserve`,
          memo: null,
          created_at: ledger[0]!.createdAt.toISOString(),
        },
        {
          kind: 'charge',
          account_id: developer,
          amount_usd: '-0.0005',
          reserved_delta_usd: '-0.001',
          idempotency_key: `${ids.completed}:charge`,
          memo: null,
          created_at: ledger[1]!.createdAt.toISOString(),
        },
      ],
      workflow_id: ids.completed,
      workflow_url: null,
    });

    const text = await genctl('tasks', 'show', ids.completed);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Task          ${ids.completed}  upscale  local/lanczos  completed\n`);
    expect(text.stdout).toContain(`Account       ${developer} (developer)\n`);
    expect(text.stdout).toContain('Cost          0.0005 USD (reserved 0.001, charged 0.0005)\n');
    expect(text.stdout).toContain('Served by     local\n');
    expect(text.stdout).toContain(
      `Outputs until ${new Date(row.completedAt!.getTime() + 30 * 86_400_000).toISOString()}\n`,
    );
    expect(text.stdout).toContain('Idempotency   order-1\n');
    expect(text.stdout).toContain(
      `Ledger\n  reserve  0.00 USD     reserved +0.001  ${ids.completed}:reserve  ${ledger[0]!.createdAt.toISOString()}\n` +
        `  charge   -0.0005 USD  reserved -0.001  ${ids.completed}:charge   ${ledger[1]!.createdAt.toISOString()}\n`,
    );
  });

  it('shows a failed task’s error and release, an x402 task’s payment, and the workflow’s Web UI link', async () => {
    const failed = await genctl('tasks', 'show', ids.failed, '--json');
    expect(failed.json.task).toMatchObject({ status: 'failed', error: longError, cost: 0 });
    expect(failed.json).toMatchObject({ reserved_usd: '0.004', charged_usd: null, idempotency_key: null });
    expect(failed.json.ledger).toMatchObject([
      { kind: 'reserve', reserved_delta_usd: '0.004' },
      { kind: 'release', amount_usd: '0.00', reserved_delta_usd: '-0.004', idempotency_key: `${ids.failed}:release` },
    ]);
    expect((await genctl('tasks', 'show', ids.failed)).stdout).toContain(`Error         ${longError}\n`);

    // With a running `npm start` announced in DATA_DIR (this process stands in for it), its Web UI is linked.
    await writeRuntimeFile(dataDir, {
      pid: process.pid,
      role: 'all',
      temporalAddress: '127.0.0.1:7233',
      temporalNamespace: 'default',
      temporalUiUrl: 'http://localhost:8233',
    });
    const paid = await genctl('tasks', 'show', ids.paid, '--json');
    expect(paid.json).toMatchObject({
      account_id: wallet,
      account_kind: 'wallet',
      payment: {
        status: 'authorized',
        payer,
        network: 'eip155:8453',
        amount_usd: '0.0005',
        amount_settled_usd: null,
        transaction: null,
        error: null,
        settled_at: null,
      },
      ledger: [],
      workflow_url: `http://localhost:8233/namespaces/default/workflows/${ids.paid}`,
    });
    expect(paid.json.task.payment).toEqual({
      method: 'x402',
      scheme: 'exact',
      network: 'eip155:8453',
      payer,
      amount: 0.0005,
      status: 'authorized',
    });
    const text = await genctl('tasks', 'show', ids.paid);
    expect(text.stdout).toContain(`x402 payment  authorized  0.0005 USD from ${payer} on eip155:8453\n`);
    expect(text.stdout).toContain(
      `Workflow      ${ids.paid}  http://localhost:8233/namespaces/default/workflows/${ids.paid}\n`,
    );
    expect(text.stdout).toContain('Ledger        no entries\n');
  });

  it('refuses an unknown task (exit 1) and a missing id (exit 2)', async () => {
    const unknown = `gen_${'0'.repeat(22)}`;
    expect(await genctl('tasks', 'show', unknown)).toMatchObject({ code: 1, stderr: `genctl: no task ${unknown}\n` });
    expect(await genctl('tasks', 'show', unknown, '--json')).toMatchObject({
      code: 1,
      stderr: `${JSON.stringify({ error: `no task ${unknown}` })}\n`,
    });
    expect((await genctl('tasks', 'show')).code).toBe(2);
  });
});

// Operators find tasks and deposits by visibility queries (Web UI, `temporal workflow list --query`): on the dev server,
// workflows started as the api and the watcher start them carry the search attributes, GenStatus follows the task to
// its end, and each query finds exactly the matching workflows. Visibility is eventually consistent: polled, bounded.
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDepositActivities } from '../../activities/deposit.activities.ts';
import { createGenerationActivities } from '../../activities/generation.activities.ts';
import type { ProviderActivities } from '../../activities/provider.activities.ts';
import { createWebhookActivities } from '../../activities/webhook.activities.ts';
import { loadCatalog } from '../../src/catalog/catalog.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { AccountKind } from '../../src/generated/prisma/client.ts';
import { startDepositWorkflow } from '../../src/use-cases/temporal/deposit-workflows.ts';
import { executeAdmitUpdate } from '../../src/use-cases/temporal/generation-workflows.ts';
import { configuredFacilitator } from '../../src/payments/methods/x402/facilitator.ts';
import { depositStateQuery } from '../../workflows/contracts/deposit.types.ts';
import { genModel, genStatus } from '../../workflows/contracts/search-attributes.ts';
import { providerTaskQueue } from '../../workflows/contracts/task-queues.ts';
import { createFundedAccount } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { minedDeposit, type ScriptedChain } from '../helpers/deposit-workflow.ts';
import { generationWorkflowHarness, textToVideoRequest, upscaleRequest } from '../helpers/generation-workflow.ts';
import { bundleWorkflows, createDevServerEnv, uniqueTaskQueue } from '../helpers/temporal.ts';
import { testStorage } from '../helpers/app.ts';
import { depositStarter, webhookStarter } from '../../src/use-cases/temporal/worker-starter.ts';

const context = {} as {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  workflowBundle: WorkflowBundleWithSourceMap;
};
const { newTaskInput } = generationWorkflowHarness(context);
const config = loadConfig({ NODE_ENV: 'test' }, []);

/** The provider stand-in: a request whose prompt or image says "fail" is refused, anything else completes. */
const generateOutputs: ProviderActivities['generateOutputs'] = async ({ request }) => {
  if (JSON.stringify(request).includes('fail')) throw ApplicationFailure.nonRetryable('refused', 'ProviderRefusal');
  return { outputs: ['http://files.test/out.bin'] };
};

/** The workflows' ids a query finds, polled until they are `expected` (or the bound runs out). */
async function expectFound(query: string, expected: string[]) {
  const found = async () => {
    const ids: string[] = [];
    for await (const workflow of context.env.client.workflow.list({ query })) ids.push(workflow.workflowId);
    return ids.sort();
  };
  await expect.poll(found, { timeout: 15_000, interval: 250 }).toEqual([...expected].sort());
}

const failing = { image_url: 'https://inputs.test/fail.png' };
const stuckTx = `0x${'c1'.repeat(32)}`;
const creditedTx = `0x${'c2'.repeat(32)}`;

/** A chain where the stuck transaction (mined at block 200) waits for confirmations that never come. */
const chain = (accountId: string): ScriptedChain => ({
  inspectDeposit: async ({ txHash }) => ({
    ...minedDeposit(accountId),
    blockNumber: txHash === stuckTx ? '200' : '100',
  }),
  depositConfirmations: async ({ blockNumber }) => ({
    confirmations: blockNumber === '200' ? 0 : 1,
    required: 1,
    pollIntervalMs: 1_000,
  }),
});

const tasks = {} as Record<'lanczosDone' | 'lanczosFailed' | 'agentDone' | 'videoFailed' | 'refused', string>;
let developer: string;
let agent: string;

/** Workers for the workflows (real activities, a scripted chain) and for each provider's queue (the stand-in). */
async function workers(taskQueue: string, depositAccount: string) {
  const { prisma } = context.database;
  const main = await Worker.create({
    connection: context.env.nativeConnection,
    taskQueue,
    workflowBundle: context.workflowBundle,
    activities: {
      ...createGenerationActivities({
        prisma,
        storage: testStorage(),
        catalog: loadCatalog(),
        config,
        facilitator: configuredFacilitator(config),
        starter: webhookStarter({ prisma, config }),
      }),
      ...createDepositActivities({ prisma, config, starter: depositStarter({ config }) }),
      ...chain(depositAccount),
      ...createWebhookActivities({ prisma, config, starter: webhookStarter({ prisma, config }) }),
    },
  });
  const providers = await Promise.all(
    ['local', 'fal'].map((provider) =>
      Worker.create({
        connection: context.env.nativeConnection,
        taskQueue: providerTaskQueue(taskQueue, provider),
        activities: { generateOutputs },
      }),
    ),
  );
  return <T>(body: () => Promise<T>) => providers[0]!.runUntil(() => providers[1]!.runUntil(() => main.runUntil(body)));
}

beforeAll(async () => {
  [context.env, context.database, context.workflowBundle] = await Promise.all([
    createDevServerEnv(),
    createTestDatabase(),
    bundleWorkflows(),
  ]);
  const { prisma } = context.database;
  developer = await createFundedAccount(prisma, { deposit: 5_000_000n });
  agent = await createFundedAccount(prisma, { kind: 'agent', deposit: 5_000_000n });
  const broke = await createFundedAccount(prisma);
  const taskQueue = uniqueTaskQueue('search');
  const temporal = { client: context.env.client, taskQueue };

  /** Admitted as the api admits (update-with-start, the attributes set at start), then run to its end. */
  const run = async (accountId: string, accountKind: AccountKind, options: Parameters<typeof newTaskInput>[0] = {}) => {
    const input = { ...(await newTaskInput(options)), accountId };
    await executeAdmitUpdate(temporal, input, { accountKind });
    await context.env.client.workflow
      .getHandle(input.taskId)
      .result()
      .catch(() => undefined);
    return input.taskId;
  };
  await (
    await workers(taskQueue, agent)
  )(async () => {
    tasks.lanczosDone = await run(developer, 'developer');
    tasks.lanczosFailed = await run(developer, 'developer', { request: { ...upscaleRequest, ...failing } });
    tasks.agentDone = await run(agent, 'agent');
    tasks.videoFailed = await run(agent, 'agent', { request: { ...textToVideoRequest, prompt: 'fail' } });
    tasks.refused = await run(broke, 'developer');
    // The watcher's and the api's start: one deposit credited, one left waiting for its confirmations.
    await context.env.client.workflow
      .getHandle(await startDepositWorkflow(temporal, { chain: 'base', txHash: creditedTx, receiptWaitSeconds: 60 }))
      .result();
    await startDepositWorkflow(temporal, { chain: 'base', txHash: stuckTx, receiptWaitSeconds: 60 });
    // Left there once it waits (its attributes upserted in the same workflow task): the workers stop after this.
    const stuck = context.env.client.workflow.getHandle(`deposit:base:${stuckTx}`);
    const confirming = async () => {
      const state = await stuck.query(depositStateQuery);
      return 'status' in state && state.status === 'confirming';
    };
    for (let tries = 0; !(await confirming()) && tries < 100; tries++)
      await new Promise((done) => setTimeout(done, 100));
  });
}, 120_000);
afterAll(async () => {
  await context.env?.client.workflow
    .getHandle(`deposit:base:${stuckTx}`)
    .terminate('test over')
    .catch(() => undefined);
  await context.env?.teardown();
  await context.database?.drop();
});

describe('generation workflows', () => {
  it('are found by status and model: the failed tasks of one model', async () => {
    await expectFound(`GenStatus = 'failed' AND GenModel = 'local/lanczos'`, [tasks.lanczosFailed]);
    await expectFound(`GenStatus = 'failed' AND GenModel = '${textToVideoRequest.model}'`, [tasks.videoFailed]);
  });

  it('are found by account, whatever their status', async () => {
    await expectFound(`GenAccountId = '${developer}'`, [tasks.lanczosDone, tasks.lanczosFailed]);
    await expectFound(`GenAccountId = '${agent}' AND GenAccountKind = 'agent'`, [tasks.agentDone, tasks.videoFailed]);
  });

  it('keep their status current: a completed task is found as completed, none is left queued or processing', async () => {
    await expectFound(`GenStatus = 'completed'`, [tasks.lanczosDone, tasks.agentDone]);
    await expectFound(`GenStatus = 'queued' OR GenStatus = 'processing'`, []);
    // An admission refused (no funds) made no task: it is told apart from a failed one.
    await expectFound(`GenStatus = 'refused'`, [tasks.refused]);
  });

  it('are found by type, provider and payment method', async () => {
    await expectFound(`GenProvider = 'fal'`, [tasks.videoFailed]);
    await expectFound(`GenType = 'upscale' AND GenStatus != 'refused'`, [
      tasks.lanczosDone,
      tasks.lanczosFailed,
      tasks.agentDone,
    ]);
    await expectFound(`GenPaymentMethod = 'x402'`, []);
    await expectFound(`GenPaymentMethod = 'balance'`, Object.values(tasks));
  });

  it('say in the Web UI list what each task is: type, model, cost and caller', async () => {
    const description = await context.env.client.workflow.getHandle(tasks.lanczosDone).describe();
    expect(await description.staticSummary()).toBe(`upscale · local/lanczos · $0.50 · developer ${developer}`);
    expect(await description.staticDetails()).toContain(`Caller: developer account ${developer}`);
    expect(description.typedSearchAttributes.get(genModel)).toBe('local/lanczos');
    expect(description.typedSearchAttributes.get(genStatus)).toBe('completed');
  });
});

describe('deposit workflows', () => {
  it('are found by status, chain and account: deposits awaiting confirmations, credited ones', async () => {
    await expectFound(`DepositStatus = 'confirming'`, [`deposit:base:${stuckTx}`]);
    await expectFound(`DepositStatus = 'credited' AND DepositChain = 'base'`, [`deposit:base:${creditedTx}`]);
    await expectFound(`DepositAccountId = '${agent}'`, [`deposit:base:${stuckTx}`, `deposit:base:${creditedTx}`]);
  });
});

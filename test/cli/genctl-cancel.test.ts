// genctl tasks cancel: the real command line against the whole gateway (dev server, database, worker), cancelling
// any account's task through the service the API uses.
import { beforeAll, describe, expect, it } from 'vitest';
import { CreateGenerationBodySchema } from '../../src/api/resources/generations/generations.schemas.ts';
import { admitTask } from '../../src/generations/tasks.ts';
import { generationWorkflow } from '../../workflows/generation/generation.workflow.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { runGenctl } from '../helpers/genctl.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { call, waitForEnd } from '../helpers/http.ts';
import { balanceGenerationInput } from '../helpers/generation-input.ts';

const gateway = useGateway();
const developer = useFundedDeveloper(gateway);
const inputs = usePngInputServer();
let body: { type: string; model: string; image_url: string };
beforeAll(() => {
  body = { type: 'upscale', model: 'local/lanczos', image_url: `${inputs.url()}/input.png` };
});

const genctl = (...args: string[]) =>
  runGenctl(
    {
      DATABASE_URL: gateway.database.url,
      TEMPORAL_ADDRESS: gateway.env.address,
      TEMPORAL_TASK_QUEUE: gateway.config.temporal.taskQueue,
      TEMPORAL_WEBHOOK_TASK_QUEUE: gateway.config.temporal.webhookTaskQueue,
    },
    args,
  );

/** A queued task (row and reservation committed) whose workflow waits for the admission it never heard. */
async function queuedTask() {
  const deps = { config: gateway.config, catalog: gateway.catalog };
  const request = {
    accountId: developer.accountId,
    accountKind: 'developer' as const,
    body: CreateGenerationBodySchema.parse(body),
    idempotencyKey: null,
  };
  const input = balanceGenerationInput(deps, request);
  await admitTask(gateway.database.prisma, { ...input, costMicros: BigInt(input.costMicros) });
  await gateway.env.client.workflow.start(generationWorkflow, {
    workflowId: input.taskId,
    taskQueue: gateway.config.temporal.taskQueue,
    args: [input],
  });
  return input.taskId;
}

describe('genctl tasks cancel', () => {
  it('cancels any account\'s queued task: failed "cancelled", released; again is fine', async () => {
    const before = await developer.balance();
    const taskId = await queuedTask();
    const cancelled = await genctl('tasks', 'cancel', taskId, '--json');
    expect(cancelled.code).toBe(0);
    expect(['cancelled', 'requested']).toContain(cancelled.json.cancel);
    expect(cancelled.json.task).toMatchObject({ id: taskId });
    await expect
      .poll(async () => gateway.database.prisma.task.findUniqueOrThrow({ where: { id: taskId } }), { timeout: 15_000 })
      .toMatchObject({ status: 'failed', error: 'cancelled' });
    expect(await developer.balance()).toBe(before);

    const again = await genctl('tasks', 'cancel', taskId);
    expect(again).toMatchObject({ code: 0 });
    expect(again.stdout).toContain(`Cancelled ${taskId}`);
  });

  it('refuses a finished task (exit 1, naming its status), an unknown one (1) and a missing id (2)', async () => {
    const created = await call(gateway, 'POST', '/generations', { key: developer.key, body });
    const task = await waitForEnd(gateway, { key: developer.key, pollUrl: created.body.poll_url });
    expect(task.status).toBe('completed');

    const finished = await genctl('tasks', 'cancel', task.id, '--json');
    expect(finished.code).toBe(1);
    expect(JSON.parse(finished.stderr).error).toMatch(/completed/);
    const unknown = await genctl('tasks', 'cancel', `gen_${'0'.repeat(22)}`);
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('no task gen_') });
    expect((await genctl('tasks', 'cancel')).code).toBe(2);
  });
});

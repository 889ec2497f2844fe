// The webhook delivery workflow on a time-skipping server, with the real activities on a real database against
// real receivers: shared by its tests and the history recorder.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createWebhookActivities, type WebhookActivities } from '../../activities/webhook.activities.ts';
import { loadConfig } from '../../src/config/config.ts';
import { mergeConfig } from './config.ts';
import { webhookDeliveryWorkflow } from '../../workflows/webhooks/webhook-delivery.workflow.ts';
import type { WebhookDeliveryInput } from '../../workflows/contracts/webhook-delivery.types.ts';
import type { TestDatabase } from './database.ts';
import { freePort } from '../../harness/ports.ts';
import { uniqueTaskQueue } from './temporal.ts';
import { type Answer, type Receiver, startReceiver } from '../../harness/webhook-receiver.ts';
import { webhookStarter } from '../../src/use-cases/temporal/worker-starter.ts';
import { messageToWebhook } from './webhook-messages.ts';

export interface WebhookMessage {
  accountId: string;
  messageId: string;
  url: string;
}

/** `context` is read at each call, so it may be filled in by a beforeAll after this is called. */
export function webhookDeliveryHarness(context: {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
  workflowBundle: WorkflowBundleWithSourceMap;
}) {
  const receivers: Receiver[] = [];

  /** A receiver that stamps each request with the test server's clock, answering `answers` in turn (then 200). */
  async function receiver({ answers = [], port = 0 }: { answers?: Answer[]; port?: number } = {}): Promise<Receiver> {
    const started = await startReceiver(async (request, index) => {
      request.at = await context.env.currentTimeMs();
      return answers[index] ?? { status: 200 };
    }, port);
    receivers.push(started);
    return started;
  }

  /** An account whose webhook is `url`, and a generation.completed message for it. */
  async function messageTo(url: string): Promise<WebhookMessage> {
    const { accountId, messageId } = await messageToWebhook(context.database.prisma, {
      url,
      event: 'generation.completed',
      data: (taskId) => ({ id: taskId, status: 'completed' }),
    });
    return { accountId, messageId, url };
  }

  /** Runs one delivery of `message` to its URL to its end, with the real activities unless `activities` replace some. */
  async function deliver({
    message,
    activities = {},
    from = {},
  }: {
    message: Pick<WebhookMessage, 'messageId' | 'url'>;
    activities?: Partial<WebhookActivities>;
    /** Where in the schedule it starts, as after an emitter's failed first attempt. */
    from?: Pick<WebhookDeliveryInput, 'firstAttempt' | 'scheduleFrom' | 'nextAttemptAt'>;
  }) {
    const taskQueue = uniqueTaskQueue('webhooks');
    const config = mergeConfig(loadConfig({ ALLOW_PRIVATE_WEBHOOK_URLS: 'true' }, []), {
      temporal: { taskQueue },
    });
    const worker = await Worker.create({
      connection: context.env.nativeConnection,
      taskQueue,
      workflowBundle: context.workflowBundle,
      activities: {
        ...createWebhookActivities({
          prisma: context.database.prisma,
          config,
          starter: webhookStarter({ prisma: context.database.prisma, config }),
        }),
        ...activities,
      },
    });
    const workflowId = `test-${taskQueue}`;
    const result = await worker.runUntil(
      context.env.client.workflow.execute(webhookDeliveryWorkflow, {
        taskQueue,
        workflowId,
        args: [{ messageId: message.messageId, url: message.url, ...from }],
      }),
    );
    return { ...result, history: () => context.env.client.workflow.getHandle(workflowId).fetchHistory() };
  }

  /**
   * A receiver that is down (nothing listens), then failing (503), then up: the first attempt is refused, and the
   * receiver comes up right after it.
   */
  async function deliverThroughOutage() {
    const port = await freePort();
    const message = await messageTo(`http://127.0.0.1:${port}/hook`);
    const deps = { prisma: context.database.prisma, config: loadConfig({ ALLOW_PRIVATE_WEBHOOK_URLS: 'true' }, []) };
    const real = createWebhookActivities({ ...deps, starter: webhookStarter(deps) });
    let up: Receiver | undefined;
    const result = await deliver({
      message,
      activities: {
        sendWebhook: async (input) => {
          const attempt = await real.sendWebhook(input);
          up ??= await receiver({ answers: [{ status: 503 }], port });
          return attempt;
        },
      },
    });
    return { message, result, received: up?.received ?? [] };
  }

  const closeReceivers = () => Promise.all(receivers.map((receiver) => receiver.close()));

  return { receiver, messageTo, deliver, deliverThroughOutage, closeReceivers };
}

// Budget alerts at the account's webhook, never lost: an alert row is marked notified only once its deliveries have
// started (a repeat finds the message and its deliveries, so sending twice sends once). The worker that admitted the
// task starts them right after the commit; the task reconciler's pass starts those a stopped process left behind.
import type { PrismaClient } from '../db/prisma.ts';
import type { WebhookEventInput } from '../webhooks/messages.ts';
import { budgetAlertEvent } from './key-budget-alerts.ts';

/** Writes the message and starts its deliveries (notifyWebhookEvent, with the caller's Temporal client). */
export type NotifyWebhook = (input: WebhookEventInput) => Promise<unknown>;

/** The alerts still to notify: one admission's, or every one older than `createdBefore` (the reconciler's sweep). */
export type UnnotifiedAlerts = { taskId: string } | { createdBefore: Date; limit: number };

/** Starts the webhook deliveries of alerts not yet notified, then marks each notified; returns how many it sent. */
export async function notifyBudgetAlerts(
  prisma: PrismaClient,
  notify: NotifyWebhook,
  which: UnnotifiedAlerts,
): Promise<number> {
  const alerts = await prisma.keyBudgetAlert.findMany({
    where: {
      notifiedAt: null,
      ...('taskId' in which ? { taskId: which.taskId } : { createdAt: { lt: which.createdBefore } }),
    },
    orderBy: { createdAt: 'asc' },
    ...('limit' in which && { take: which.limit }),
  });
  for (const alert of alerts) {
    const { apiKeyId, windowStart, threshold } = alert;
    await notify({
      event: budgetAlertEvent,
      // One message per key, window and threshold: its webhook-id is the same however often this runs.
      subject: `${apiKeyId}:${windowStart.toISOString().slice(0, 10)}:${threshold}`,
      accountId: alert.accountId,
      data: alert.data,
    });
    await prisma.keyBudgetAlert.updateMany({
      where: { apiKeyId, windowStart, threshold, notifiedAt: null },
      data: { notifiedAt: new Date() },
    });
  }
  return alerts.length;
}

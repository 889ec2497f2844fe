// genctl webhooks: the delivery log for operators, and redelivery of a message to its targets.
import type { PrismaClient } from '../db/prisma.ts';
import type { WebhookDelivery } from '../generated/prisma/client.ts';
import { DomainError } from '../domain/errors.ts';
import { getMessage, listMessages, type MessageSummary, type TargetSummary } from '../webhooks/delivery-log.ts';
import { redeliverMessage, type RedeliveryDeps } from '../use-cases/webhooks/redelivery.ts';
import { CommandError, type Output } from './commands.ts';

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

function attemptJson(row: WebhookDelivery) {
  return {
    attempt: row.attempt,
    at: iso(row.createdAt),
    status_code: row.statusCode,
    error: row.error,
    duration_ms: row.durationMs,
    next_attempt_at: iso(row.nextAttemptAt),
  };
}

function targetJson(target: TargetSummary) {
  const last = target.attempts.at(-1)!;
  return { url: target.url, state: target.state, attempts: target.attempts.length, last_attempt: attemptJson(last) };
}

function messageJson({ message }: MessageSummary) {
  return {
    message_id: message.id,
    event: message.event,
    task_id: message.taskId,
    account_id: message.accountId,
    created_at: iso(message.createdAt),
  };
}

const outcomeText = (row: WebhookDelivery) =>
  row.statusCode !== null ? `HTTP ${row.statusCode}` : (row.error ?? 'no answer');

function targetLine(target: TargetSummary): string {
  const last = target.attempts.at(-1)!;
  const next = last.nextAttemptAt ? `, next attempt ${iso(last.nextAttemptAt)}` : '';
  return `${target.state.padEnd(9)}  ${target.attempts.length} attempt(s), last ${outcomeText(last)}${next}  ${target.url}`;
}

function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new CommandError(`${flag} must be a whole number, at least 1`, 2);
  return number;
}

export async function listWebhooksCommand(
  prisma: PrismaClient,
  options: { task?: string; account?: string; limit?: string },
): Promise<Output> {
  const messages = await listMessages(prisma, {
    taskId: options.task,
    accountId: options.account,
    limit: positiveInt(options.limit, '--limit', 50),
  });
  return {
    json: {
      messages: messages.map((summary) => ({ ...messageJson(summary), targets: summary.targets.map(targetJson) })),
    },
    text:
      messages.length === 0
        ? 'No webhook messages.'
        : messages
            .map((summary) =>
              [
                `${summary.message.id}  ${summary.message.event}  ${summary.message.taskId ?? ''}  ${summary.message.accountId ?? ''}  ${iso(summary.message.createdAt)}`,
                ...(summary.targets.length === 0
                  ? ['  (no attempt yet)']
                  : summary.targets.map((target) => `  ${targetLine(target)}`)),
              ].join('\n'),
            )
            .join('\n'),
  };
}

async function requireMessage(prisma: PrismaClient, messageId: string | undefined): Promise<MessageSummary> {
  if (!messageId) throw new CommandError('missing the message id', 2);
  const summary = await getMessage(prisma, messageId);
  if (!summary) throw new CommandError(`no webhook message ${messageId}`);
  return summary;
}

export async function showWebhookCommand(prisma: PrismaClient, messageId: string | undefined): Promise<Output> {
  const summary = await requireMessage(prisma, messageId);
  const json = {
    ...messageJson(summary),
    body: JSON.parse(summary.message.body) as unknown,
    targets: summary.targets.map((target) => ({
      url: target.url,
      state: target.state,
      attempts: target.attempts.map(attemptJson),
    })),
  };
  return {
    json,
    text: [
      `${json.message_id}  ${json.event}  task ${json.task_id ?? '-'}  account ${json.account_id ?? '-'}  created ${json.created_at}`,
      ...summary.targets.flatMap((target) => [
        `${target.url}: ${target.state}`,
        ...target.attempts.map(
          (row) =>
            `  #${row.attempt}  ${iso(row.createdAt)}  ${outcomeText(row)}${row.durationMs === null ? '' : `  ${row.durationMs} ms`}${row.nextAttemptAt ? `  next ${iso(row.nextAttemptAt)}` : ''}`,
        ),
      ]),
      `body: ${summary.message.body}`,
    ].join('\n'),
  };
}

/** Sends the same message (same webhook-id and body) again, on a fresh schedule, to each target or to --url. */
export async function redeliverWebhookCommand(
  deps: RedeliveryDeps,
  messageId: string | undefined,
  options: { url?: string },
): Promise<Output> {
  if (!messageId) throw new CommandError('missing the message id', 2);
  const redelivery = await redeliverMessage(deps, messageId, { url: options.url }).catch((error: unknown) => {
    throw error instanceof DomainError ? new CommandError(error.message) : error;
  });
  const results = redelivery.targets.map((target) => ({
    url: target.url,
    redelivery: target.redelivery,
    first_attempt: target.firstAttempt,
  }));
  return {
    json: { message_id: messageId, targets: results },
    text: results
      .map((result) =>
        result.redelivery === 'started'
          ? `Redelivering ${messageId} to ${result.url} from attempt ${result.first_attempt}.`
          : `${messageId} is still being delivered to ${result.url}; left alone.`,
      )
      .join('\n'),
  };
}

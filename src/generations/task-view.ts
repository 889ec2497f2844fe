// The Generation task as callers see it (spec §2), JSON-safe so the workflow can hold it and answer queries.
import type { Task, X402Payment } from '../generated/prisma/client.ts';
import type { TaskProgress, TaskStatus } from '../domain/values.ts';
import { usdNumber } from '../domain/money.ts';
import { type OutputRetention, outputsExpireAt } from './output-retention.ts';

export interface TaskView {
  id: string;
  type: string;
  model: string;
  status: TaskStatus;
  prompt?: string;
  output?: string;
  outputs?: string[];
  error?: string;
  created_at: string;
  updated_at: string;
  completed_at?: string;
  /** When it started processing (it may then still wait for a free provider slot). */
  started_at?: string;
  /** While it runs: what its provider last reported. */
  progress?: TaskProgress;
  aspect_ratio?: string;
  duration?: number;
  resolution?: string;
  num_outputs?: number;
  /** USD: what was charged once completed, what is reserved before, nothing for a failed task. */
  cost: number;
  payment?: TaskPaymentView;
  /** The failed task this one replays (an operator re-ran it with `genctl tasks replay`). */
  replay_of?: string;
  /** The provider whose route ran the completed task: the model's own, or a fallback that took over. */
  served_by?: string;
  /** When the outputs of the completed task are (or were) deleted; absent while kept forever. */
  outputs_expire_at?: string;
  /** What the completed task counted in its model's pricing units (tokens, seconds, images, …). */
  usage?: Record<string, number>;
}

export interface TaskPaymentView {
  method: 'x402';
  scheme: string;
  network: string;
  payer: string;
  amount: number;
  amount_settled?: number;
  transaction?: string;
  status: 'authorized' | 'settling' | 'settled' | 'failed' | 'abandoned';
}

function paymentView(payment: X402Payment): TaskPaymentView {
  return {
    method: 'x402',
    scheme: payment.scheme,
    network: payment.network,
    payer: payment.payer,
    amount: usdNumber(payment.amount),
    ...(payment.amountSettled !== null ? { amount_settled: usdNumber(payment.amountSettled) } : {}),
    ...(payment.transaction ? { transaction: payment.transaction } : {}),
    status: payment.status as TaskPaymentView['status'],
  };
}

/** The task's `cost` in micro-USD: what was charged once completed, what is reserved before, nothing once failed. */
export const taskCostMicros = (task: Pick<Task, 'status' | 'costReserved' | 'costCharged'>): bigint =>
  task.status === 'completed' ? (task.costCharged ?? 0n) : task.status === 'failed' ? 0n : task.costReserved;

/** `payment`: the x402 payment of a task paid that way; `retention`: how long its outputs are kept. */
/** The columns a task's view shows (not its stored request, which lists of tasks leave unread). */
export type ViewedTask = Omit<Task, 'request'> & { payment?: X402Payment | null };

export function taskView(task: ViewedTask, retention: OutputRetention): TaskView {
  const cost = taskCostMicros(task);
  const optional = {
    prompt: task.prompt,
    output: task.output,
    error: task.error,
    completed_at: task.completedAt?.toISOString(),
    started_at: task.startedAt?.toISOString(),
    progress: task.status === 'processing' ? (task.progress as TaskProgress | null) : undefined,
    aspect_ratio: task.aspectRatio,
    duration: task.duration,
    resolution: task.resolution,
    num_outputs: task.numOutputs,
    outputs: task.outputs.length > 0 ? task.outputs : undefined,
    payment: task.payment ? paymentView(task.payment) : undefined,
    replay_of: task.replayOf,
    served_by: task.servedBy,
    outputs_expire_at: outputsExpireAt(task, retention)?.toISOString(),
    usage: task.usage && Object.keys(task.usage).length > 0 ? (task.usage as Record<string, number>) : undefined,
  };
  const view: TaskView = {
    id: task.id,
    type: task.type,
    model: task.model,
    status: task.status,
    created_at: task.createdAt.toISOString(),
    updated_at: task.updatedAt.toISOString(),
    cost: usdNumber(cost),
  };
  // Assigned one by one: spreading built objects costs V8 ~10 µs a task, and a history page has up to 100.
  for (const [name, value] of Object.entries(optional))
    if (value !== null && value !== undefined) (view as unknown as Record<string, unknown>)[name] = value;
  return view;
}

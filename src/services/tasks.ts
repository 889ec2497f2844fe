// Generation tasks: the row and the money move together, in one transaction per step, each step idempotent
// (ledger keys derive from the task id; row updates are guarded by the status they leave).
import type { CatalogModel } from '../catalog/catalog.ts';
import { priceRequest, type Usage } from '../catalog/pricing.ts';
import type { PrismaClient } from '../db/prisma.ts';
import type { Prisma, Task } from '../generated/prisma/client.ts';
import type { GenerationRequest } from '../domain/generation-request.ts';
import { charge, release, reserve } from './ledger.ts';

export interface AdmitTaskInput {
  taskId: string;
  accountId: string;
  request: GenerationRequest;
  costMicros: bigint;
  idempotencyKey: string | null;
}

/**
 * Locks the task row for the rest of the transaction: settling and failing a task exclude each other, so a
 * cancellation racing a settlement can never both charge and mark the task failed.
 */
async function lockTask(tx: Prisma.TransactionClient, taskId: string): Promise<Task | null> {
  await tx.$queryRaw`SELECT id FROM tasks WHERE id = ${taskId} FOR UPDATE`;
  return tx.task.findUnique({ where: { id: taskId } });
}

/** Reserves the quoted cost and writes the task row `queued`; a repeat finds both and changes nothing. */
export async function admitTask(prisma: PrismaClient, input: AdmitTaskInput): Promise<Task> {
  return prisma.$transaction(async (tx) => {
    const existing = await tx.task.findUnique({ where: { id: input.taskId } });
    if (existing) return existing;
    await reserve(
      { tx },
      {
        accountId: input.accountId,
        amount: input.costMicros,
        taskId: input.taskId,
        idempotencyKey: `${input.taskId}:reserve`,
      },
    );
    const { request } = input;
    return tx.task.create({
      data: {
        id: input.taskId,
        accountId: input.accountId,
        type: request.type,
        model: request.model,
        status: 'queued',
        request: request as object,
        prompt: request.prompt,
        aspectRatio: request.aspect_ratio,
        duration: request.duration,
        resolution: request.resolution,
        numOutputs: request.num_outputs,
        costReserved: input.costMicros,
        webhookUrl: request.webhook_url,
        idempotencyKey: input.idempotencyKey,
      },
    });
  });
}

export async function markProcessing(prisma: PrismaClient, taskId: string): Promise<Task> {
  await prisma.task.updateMany({ where: { id: taskId, status: 'queued' }, data: { status: 'processing' } });
  return prisma.task.findUniqueOrThrow({ where: { id: taskId } });
}

/** Charges what the task actually cost (never more than reserved), releases the rest, marks it completed. */
export async function completeTask(
  prisma: PrismaClient,
  model: CatalogModel,
  input: { taskId: string; outputs: string[]; usage?: Usage },
): Promise<Task> {
  return prisma.$transaction(async (tx) => {
    const task = await lockTask(tx, input.taskId);
    if (!task) throw new Error(`task ${input.taskId} does not exist`);
    if (task.status === 'completed' || task.status === 'failed') return task;
    // The quote was the most it could cost; what was used (tokens, seconds) and delivered (fewer outputs than
    // asked for) is what is charged.
    const request = storedRequest(task);
    const fewerOutputs = request.num_outputs !== undefined && input.outputs.length < request.num_outputs;
    const actual =
      input.usage || fewerOutputs
        ? priceRequest(model, {
            ...request,
            ...(fewerOutputs ? { num_outputs: input.outputs.length } : {}),
            ...(input.usage ? { usage: input.usage } : {}),
          }).micros
        : task.costReserved;
    const charged = actual < task.costReserved ? actual : task.costReserved;
    await charge(
      { tx },
      { accountId: task.accountId, amount: charged, taskId: task.id, idempotencyKey: `${task.id}:charge` },
    );
    return tx.task.update({
      where: { id: task.id },
      data: {
        status: 'completed',
        output: input.outputs[0],
        outputs: input.outputs,
        costCharged: charged,
        completedAt: new Date(),
      },
    });
  });
}

/**
 * Releases the whole reservation and marks the task failed with a caller-safe error. Without a row (admission
 * never committed) there is nothing to release: null.
 */
export async function failTask(prisma: PrismaClient, input: { taskId: string; error: string }): Promise<Task | null> {
  return prisma.$transaction(async (tx) => {
    const task = await lockTask(tx, input.taskId);
    if (!task) return null;
    if (task.status === 'completed' || task.status === 'failed') return task;
    await release({ tx }, { accountId: task.accountId, taskId: task.id, idempotencyKey: `${task.id}:release` });
    return tx.task.update({
      where: { id: task.id },
      data: { status: 'failed', error: input.error, completedAt: new Date() },
    });
  });
}

/** The request a task was admitted with (a JSON column, written from a GenerationRequest). */
export const storedRequest = (task: Pick<Task, 'request'>) => task.request as unknown as GenerationRequest;

export async function findTaskForAccount(
  prisma: PrismaClient,
  taskId: string,
  accountId: string,
): Promise<Task | null> {
  const task = await prisma.task.findUnique({ where: { id: taskId } });
  // Someone else's task is answered exactly like a task that does not exist.
  return task && task.accountId === accountId ? task : null;
}

export async function findTaskByIdempotencyKey(
  prisma: PrismaClient,
  accountId: string,
  idempotencyKey: string,
): Promise<Task | null> {
  return prisma.task.findUnique({ where: { accountId_idempotencyKey: { accountId, idempotencyKey } } });
}

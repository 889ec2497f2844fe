// A task row written straight into the database, for tests of what reads or repairs rows (not of admission).
import type { PrismaClient } from '../../src/db/prisma.ts';
import type { Prisma } from '../../src/generated/prisma/client.ts';
import type { GenerationRequest } from '../../src/domain/generation-request.ts';
import { newId } from '../../src/domain/ids.ts';
import { admitPaidTask, walletAccountId } from '../../src/payments/methods/x402/paid-tasks.ts';

type TaskStatus = 'queued' | 'processing' | 'completed' | 'failed';

/** A local/lanczos upscale of the account in `status` (a completed one charged and with its output); returns its id. */
export async function createTaskRow(
  prisma: PrismaClient,
  accountId: string,
  status: TaskStatus,
  overrides: Partial<Prisma.TaskUncheckedCreateInput> = {},
): Promise<string> {
  const completed =
    status === 'completed'
      ? {
          costCharged: 1_000n,
          output: 'http://files.test/a.png',
          outputs: ['http://files.test/a.png'],
          completedAt: new Date(),
        }
      : {};
  const task = await prisma.task.create({
    data: {
      id: newId('gen'),
      accountId,
      type: 'upscale',
      model: 'local/lanczos',
      status,
      request: {},
      costReserved: 1_000n,
      ...completed,
      ...(status === 'failed' ? { error: 'The generation failed at the provider. You have not been charged.' } : {}),
      ...overrides,
    },
  });
  return task.id;
}

/**
 * A queued task of `payer`'s wallet paid with an x402 authorization (0.0005 USD on Base, not yet settled), admitted
 * through the real service; returns the task row with its payment.
 */
export function createPaidTaskRow(
  prisma: PrismaClient,
  payer: string,
  request: GenerationRequest,
  taskId = newId('gen'),
) {
  return admitPaidTask(prisma, {
    taskId,
    accountId: walletAccountId(payer),
    request,
    costMicros: 500n,
    idempotencyKey: null,
    payment: {
      scheme: 'exact',
      network: 'eip155:8453',
      asset: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      payer,
      payTo: `0x${'bb'.repeat(20)}`,
      nonce: `0x${'ab'.repeat(32)}`,
      amount: '500',
      validBefore: '4102444800',
      payload: {},
      requirement: {},
      maxTasksInFlight: 5,
    },
  });
}

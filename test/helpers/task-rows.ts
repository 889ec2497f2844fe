// A task row written straight into the database, for tests of what reads or repairs rows (not of admission).
import type { PrismaClient } from '../../src/db/prisma.ts';
import type { Prisma } from '../../src/generated/prisma/client.ts';
import { newId } from '../../src/services/ids.ts';

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

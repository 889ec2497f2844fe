// genctl tasks cancel: an operator cancels any account's task, through the service POST /generations/{id}/cancel uses.
import type { Client } from '@temporalio/client';
import type { Config } from '../config/config.ts';
import type { PrismaClient } from '../db/prisma.ts';
import { NotFoundError, TaskEndedError } from '../domain/errors.ts';
import { cancelGeneration } from '../use-cases/generations/cancel.ts';
import { CommandError, type Output } from './commands.ts';

export interface CancelCommandDeps {
  prisma: PrismaClient;
  temporal: () => Promise<Client>;
  config: Pick<Config, 'temporal' | 'outputs'>;
}

export async function cancelTaskCommand(deps: CancelCommandDeps, taskId: string | undefined): Promise<Output> {
  if (!taskId) throw new CommandError('missing the task id', 2);
  const client = await deps.temporal();
  const temporal = { client, taskQueue: deps.config.temporal.taskQueue };
  try {
    const { task, ended } = await cancelGeneration({ prisma: deps.prisma, temporal, config: deps.config }, { taskId });
    return {
      json: { cancel: ended ? 'cancelled' : 'requested', task },
      text: ended
        ? `Cancelled ${taskId}: failed with error "cancelled"; what it reserved was released.`
        : `Cancel requested for ${taskId} (still ${task.status}); it ends failed with error "cancelled" shortly.`,
    };
  } catch (error) {
    if (error instanceof NotFoundError) throw new CommandError(`no task ${taskId}`);
    if (error instanceof TaskEndedError) throw new CommandError(error.message);
    throw error;
  }
}

import type { PrismaClient } from '../src/db/prisma.ts';
import { classifyFailures } from './failures.ts';

export interface SystemActivityDeps {
  prisma: PrismaClient;
}

export function createSystemActivities({ prisma }: SystemActivityDeps) {
  return classifyFailures({
    /** Reads the database's clock: proves the worker reaches PostgreSQL through Prisma. */
    async checkDatabase(): Promise<{ database: string; checkedAt: string }> {
      const [row] = await prisma.$queryRaw<{ now: Date; version: string }[]>`SELECT now() AS now, version() AS version`;
      return { database: row!.version.split(' ').slice(0, 2).join(' '), checkedAt: row!.now.toISOString() };
    },
  });
}

export type SystemActivities = ReturnType<typeof createSystemActivities>;

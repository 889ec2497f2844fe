// What one task costs besides CPU (issue 28): the PostgreSQL transactions that wrote (one transaction id each), and
// its workflow's history events and workflow tasks, read from the histories of the tasks a phase ran.
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '../src/db/prisma.ts';

/** The next transaction id of the server: the count of writing transactions so far (every database of it). */
export async function writeTransactions(prisma: PrismaClient): Promise<bigint> {
  const [row] = await prisma.$queryRaw<{ xid: string }[]>`SELECT pg_current_xact_id()::text AS xid`;
  return BigInt(row!.xid);
}

/** Average history events and workflow tasks of the tasks' workflows (a sample of at most `sample`). */
export async function historyCost(client: Client, taskIds: string[], sample = 20) {
  const chosen = taskIds.slice(0, sample);
  let events = 0;
  let workflowTasks = 0;
  for (const id of chosen) {
    const history = await client.workflow.getHandle(id).fetchHistory();
    events += history.events?.length ?? 0;
    workflowTasks += (history.events ?? []).filter((event) => event.workflowTaskCompletedEventAttributes).length;
  }
  return { events: events / chosen.length, workflowTasks: workflowTasks / chosen.length, sampled: chosen.length };
}

// Output retention through the real stack (local driver; the S3 driver in s3-storage.test.ts): a completed task's body
// and its workflow's result (a webhook's data) say when its outputs expire, completed_at + OUTPUT_RETENTION_DAYS; past
// it their links answer 410 `output_expired`, the `output-expiry` schedule deletes the files and marks the task, and
// the body still says when; a retention of 0 shows no expiry, serves the links and deletes nothing.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ensureOutputExpirySchedule,
  outputExpiryScheduleId,
} from '../../src/use-cases/temporal/output-expiry-schedule.ts';
import { createLocalStorage } from '../../src/storage/local-storage.ts';
import type { OutputExpiryReport } from '../../workflows/contracts/output-expiry.types.ts';
import { startTestApp } from '../helpers/app.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, generateAndWait } from '../helpers/http.ts';
import { pngImage } from '../helpers/media.ts';
import { createTaskRow } from '../helpers/task-rows.ts';

const stack = useGateway(() => ({ outputs: { retentionDays: 30 } }));
const developer = useFundedDeveloper(stack);

const dayMs = 86_400_000;
const daysAfter = (iso: string, days: number) => new Date(Date.parse(iso) + days * dayMs).toISOString();

/** A completed task of the developer that ended `days` ago, its one output stored where the worker stores them. */
async function endedTask(days: number) {
  const { prisma } = stack.database;
  const completedAt = new Date(Date.now() - days * dayMs);
  const id = await createTaskRow(prisma, developer.accountId, 'completed', { completedAt });
  const url = await createLocalStorage(stack.filesDir, stack.app.url).put(`${id}/output-0.png`, await pngImage());
  await prisma.task.update({ where: { id }, data: { output: url, outputs: [url] } });
  return { id, url, folder: join(stack.filesDir, id), expiresAt: daysAfter(completedAt.toISOString(), 30) };
}

const read = async (id: string) => (await call(stack, 'GET', `/generations/${id}`, { key: developer.key })).body;
const download = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, body: response.status === 200 ? null : await response.json() };
};

/** Triggers the schedule (made as the worker makes it) and returns the report of the run it started. */
async function sweepNow(): Promise<OutputExpiryReport> {
  await ensureOutputExpirySchedule(stack.env.client, stack.config);
  const schedule = stack.env.client.schedule.getHandle(outputExpiryScheduleId);
  const taken = (await schedule.describe()).info.numActionsTaken;
  await schedule.trigger();
  await expect.poll(async () => (await schedule.describe()).info.numActionsTaken, { timeout: 15_000 }).toBe(taken + 1);
  const { recentActions } = (await schedule.describe()).info;
  const latest = recentActions.reduce((last, action) => (action.takenAt > last.takenAt ? action : last));
  const { workflowId, firstExecutionRunId } = latest.action.workflow;
  return stack.env.client.workflow.getHandle(workflowId, firstExecutionRunId).result();
}

describe('output retention', () => {
  it("a completed task's body and its workflow's result say when its outputs expire; its links are served", async () => {
    const done = await generateAndWait(stack, {
      key: developer.key,
      body: { type: 'text-to-audio', model: 'local/espeak', prompt: 'Kept for thirty days.' },
    });
    expect(done.status).toBe('completed');
    expect(done.outputs_expire_at).toBe(daysAfter(done.completed_at, 30));
    const result = await stack.env.client.workflow.getHandle(done.id).result();
    expect(result).toMatchObject({ outputs_expire_at: done.outputs_expire_at });
    expect((await download(done.output)).status).toBe(200);
  });

  it('past it: 410 output_expired, then the schedule deletes its files and marks it; recent ones stay', async () => {
    const expired = await endedTask(31);
    const recent = await endedTask(29);
    const gone = {
      error: 'output_expired',
      message: `The outputs of this task expired on ${expired.expiresAt} and were deleted (outputs are kept 30 days after their task completes).`,
    };
    // Gone from its expiry on, before the sweep has run.
    expect(await download(expired.url)).toEqual({ status: 410, body: gone });
    expect(existsSync(expired.folder)).toBe(true);

    const report = await sweepNow();
    expect(report.deleted).toContain(expired.id);
    expect(report.deleted).not.toContain(recent.id);
    expect(existsSync(expired.folder)).toBe(false);
    const row = await stack.database.prisma.task.findUniqueOrThrow({ where: { id: expired.id } });
    expect(row.outputsDeletedAt).toBeInstanceOf(Date);
    expect(await download(expired.url)).toEqual({ status: 410, body: gone });
    expect(await read(expired.id)).toMatchObject({ status: 'completed', outputs_expire_at: expired.expiresAt });

    expect(await download(recent.url)).toEqual({ status: 200, body: null });
    expect(await read(recent.id)).toMatchObject({ outputs_expire_at: recent.expiresAt });
  });

  it('OUTPUT_RETENTION_DAYS=0: no expiry in the body, the links served, and the sweep deletes nothing', async () => {
    const old = await endedTask(400);
    // The api as another process serves it with the setting at 0; the worker's setting is changed alike.
    const keptForever = await startTestApp({
      database: stack.database,
      config: { ...stack.config, outputs: { retentionDays: 0 } },
      storage: createLocalStorage(stack.filesDir, stack.app.url),
    });
    stack.config.outputs.retentionDays = 0;
    try {
      const { body } = await call({ app: keptForever }, 'GET', `/generations/${old.id}`, { key: developer.key });
      expect(body.status).toBe('completed');
      expect(body).not.toHaveProperty('outputs_expire_at');
      expect(await download(old.url.replace(stack.app.url, keptForever.url))).toEqual({ status: 200, body: null });
      expect(await sweepNow()).toEqual({ deleted: [] });
      expect(existsSync(old.folder)).toBe(true);
      const row = await stack.database.prisma.task.findUniqueOrThrow({ where: { id: old.id } });
      expect(row.outputsDeletedAt).toBeNull();
    } finally {
      stack.config.outputs.retentionDays = 30;
      await keptForever.close();
    }
  });
});

// What scale-out changes, on the cluster (Caddy, two api and two worker processes, Temporal's server on PostgreSQL,
// SeaweedFS): admissions land on both api processes and run on both workers; an Idempotency-Key holds across api
// processes; a cancel from one api process reaches a task running on any worker; an upload taken by one process is an
// input to another; a task's events reach a stream on any api process. Money holds throughout.
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidOf } from '../helpers/cluster.ts';
import { openEventStream } from '../helpers/event-stream.ts';
import { call, postGeneration, waitForEnd } from '../helpers/http.ts';
import { ledgerProblems } from '../../harness/ledger-check.ts';
import { pngImage } from '../helpers/media.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { useClusterDeveloper, useSharedCluster } from './shared-cluster.ts';

// `/held/…` inputs are answered only when the test lets them go: their tasks stay running until then.
const held: (() => void)[] = [];
const inputs = usePngInputServer({
  respond: (req, _res, sendPng) => (req.url?.startsWith('/held/') ? held.push(sendPng) : sendPng()),
});
const cluster = useSharedCluster();
const developer = useClusterDeveloper(cluster);
const upscale = (path = '/photo.png') => ({
  type: 'upscale',
  model: 'local/lanczos',
  image_url: `${inputs.url()}${path}`,
});

let temporal: Client;
let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address: cluster.temporalAddress });
  temporal = new Client({ connection, namespace: 'default' });
});
afterAll(async () => {
  for (const release of held.splice(0)) release();
  await connection?.close();
});

/** The identities (`pid@host`) that started a task's workflow and ran its activities, from its history. */
async function whoRan(taskId: string): Promise<{ starter: string; workers: string[] }> {
  const history = await temporal.workflow.getHandle(taskId).fetchHistory();
  const events = history.events ?? [];
  const started = events.find((event) => event.workflowExecutionStartedEventAttributes);
  const workers = events.flatMap((event) => event.activityTaskStartedEventAttributes?.identity ?? []);
  return { starter: started?.workflowExecutionStartedEventAttributes?.identity ?? '', workers };
}

const pidsOf = (identities: string[]) => new Set(identities.map((identity) => Number(identity.split('@')[0])));

describe('the cluster under concurrent admissions', () => {
  it('spreads them over both api processes and both workers; every task completes, charged once', async () => {
    const created = await Promise.all(
      Array.from({ length: 24 }, () => postGeneration(cluster, { key: developer.key, body: upscale() })),
    );
    for (const each of created) expect(each.status, JSON.stringify(each.body)).toBe(202);
    const ended = await Promise.all(
      created.map(({ body }) =>
        waitForEnd(cluster, { key: developer.key, pollUrl: body.poll_url, timeoutMs: 120_000 }),
      ),
    );
    for (const task of ended)
      expect(task).toMatchObject({ status: 'completed', output: expect.stringMatching(/^http/) });

    const ran = await Promise.all(ended.map((task) => whoRan(task.id)));
    const apis = ['api-1', 'api-2'].map((name) => pidOf(cluster.banner, name));
    const workers = ['worker-1', 'worker-2'].map((name) => pidOf(cluster.banner, name));
    expect([...pidsOf(ran.map(({ starter }) => starter))].sort()).toEqual(apis.sort());
    expect([...pidsOf(ran.flatMap(({ workers: identities }) => identities))].sort()).toEqual(workers.sort());
    expect(await ledgerProblems(cluster.prisma, developer.accountId)).toEqual([]);
  });
});

describe('across api processes', () => {
  it('one Idempotency-Key sent to both at once gives one task and one reservation', async () => {
    const headers = { 'idempotency-key': `cluster-${Date.now()}` };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => postGeneration(cluster, { key: developer.key, body: upscale(), headers })),
    );
    expect(answers.map(({ status }) => status)).toEqual(Array(6).fill(202));
    expect(new Set(answers.map(({ body }) => body.id)).size).toBe(1);
    const first = answers[0]!.body as { id: string; poll_url: string };
    expect((await waitForEnd(cluster, { key: developer.key, pollUrl: first.poll_url })).status).toBe('completed');
    const entries = await cluster.prisma.ledgerEntry.groupBy({
      by: ['kind'],
      where: { taskId: first.id },
      _count: true,
    });
    expect(Object.fromEntries(entries.map(({ kind, _count }) => [kind, _count]))).toMatchObject({
      reserve: 1,
      charge: 1,
    });
  });

  it('a cancel reaches a task running on a worker: failed "cancelled", nothing charged', async () => {
    const waitingBefore = held.length;
    const created = await postGeneration(cluster, { key: developer.key, body: upscale(`/held/${Date.now()}.png`) });
    expect(created.status).toBe(202);
    // The worker is downloading the held input: the task is running.
    await expect.poll(() => held.length, { timeout: 60_000 }).toBeGreaterThan(waitingBefore);
    const cancelled = await call(cluster, 'POST', `/generations/${created.body.id}/cancel`, { key: developer.key });
    expect([200, 202]).toContain(cancelled.status);
    const task = await waitForEnd(cluster, { key: developer.key, pollUrl: created.body.poll_url, timeoutMs: 60_000 });
    expect(task).toMatchObject({ status: 'failed', error: 'cancelled', cost: 0 });
    expect(await cluster.prisma.ledgerEntry.count({ where: { taskId: task.id, kind: 'charge' } })).toBe(0);
  });

  it('an upload taken by one process is the input of a task on another', async () => {
    const png = await pngImage(12, 8);
    const uploaded = await fetch(`${cluster.app.url}/api/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${developer.key}`, 'content-type': 'image/png' },
      body: png,
    });
    expect(uploaded.status).toBe(201);
    const { url } = (await uploaded.json()) as { url: string };
    const created = await postGeneration(cluster, {
      key: developer.key,
      body: { type: 'upscale', model: 'local/lanczos', image_url: url },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const task = await waitForEnd(cluster, { key: developer.key, pollUrl: created.body.poll_url, timeoutMs: 60_000 });
    expect(task).toMatchObject({ status: 'completed' });
  });

  it("a task's event stream and the account's, on any api process, see a task that runs on a worker", async () => {
    // Opened before the task exists: its events reach whichever api process holds the stream through LISTEN/NOTIFY.
    const account = await openEventStream(cluster, '/events', { key: developer.key });
    expect(account.status).toBe(200);
    const releasedBefore = held.length;
    const created = await postGeneration(cluster, {
      key: developer.key,
      body: upscale(`/held/events-${Date.now()}.png`),
    });
    expect(created.status).toBe(202);
    const stream = await openEventStream(cluster, `/generations/${created.body.id}/events`, { key: developer.key });
    expect(stream.status).toBe(200);
    await expect.poll(() => held.length, { timeout: 60_000 }).toBeGreaterThan(releasedBefore);
    held.pop()!();
    const events = await stream.rest(60_000);
    expect(events.map(({ event }) => event)).toEqual(expect.arrayContaining(['queued', 'processing', 'completed']));
    expect(events.at(-1)).toMatchObject({ event: 'completed', data: { id: created.body.id, status: 'completed' } });
    const seen: string[] = [];
    for (;;) {
      const next = await account.next(60_000);
      if (next.data.id === created.body.id) seen.push(next.event);
      if (next.event === 'completed' && next.data.id === created.body.id) break;
    }
    expect(seen).toEqual(expect.arrayContaining(['queued', 'processing', 'completed']));
    account.close();
  });

  it('leaves the ledger whole', async () => {
    expect(await ledgerProblems(cluster.prisma, developer.accountId)).toEqual([]);
  });
});

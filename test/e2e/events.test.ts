// The task event streams (issue 29) through the real stack: GET /generations/{id}/events sends a task's queued,
// processing, progress and final events in order and closes, the final one's data being the task as GET shows it; a
// reconnect with Last-Event-ID resumes after it, losing and repeating nothing; GET /events carries every task of the
// account; idle streams send heartbeats; refusals are the API's JSON errors.
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, startGeneration } from '../helpers/http.ts';
import { openEventStream, type StreamEvent } from '../helpers/event-stream.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';

const heartbeatMs = 300;
const gateway = useGateway(() => ({ events: { heartbeatMs } }));
const developer = useFundedDeveloper(gateway);
const other = useFundedDeveloper(gateway);

// Inputs under /held/ wait until the test releases them, so a task stays `processing` (downloading) meanwhile.
const held: (() => void)[] = [];
const inputs = usePngInputServer({
  respond: (req, _res: ServerResponse, sendPng) => {
    if (req.url?.startsWith('/held/')) held.push(sendPng);
    else sendPng();
  },
});
const releaseInputs = () => held.splice(0).forEach((send) => send());
afterEach(releaseInputs);

/** A task that stays processing (its input held) until `releaseInputs()`. */
const heldTask = (key = developer.key) =>
  startGeneration(gateway, {
    key,
    body: { type: 'upscale', model: 'local/lanczos', image_url: `${inputs.url()}/held/${Math.random()}.png` },
  });

const quickTask = (key = developer.key) =>
  startGeneration(gateway, {
    key,
    body: { type: 'text-to-audio', model: 'local/espeak', prompt: 'Events, one by one.' },
  });

const types = (events: StreamEvent[]) => events.map((event) => event.event);
const ids = (events: StreamEvent[]) => events.map((event) => BigInt(event.id!));
const increasing = (values: bigint[]) => values.every((value, index) => index === 0 || value > values[index - 1]!);

describe('GET /generations/{id}/events', () => {
  it('sends queued, processing, progress, then completed (the task as GET shows it), and closes', async () => {
    const taskId = await heldTask();
    const stream = await openEventStream(gateway, `/generations/${taskId}/events`, { key: developer.key });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).toMatch(/no-cache/);
    const first = [await stream.next(), await stream.next(), await stream.next()];
    expect(types(first)).toEqual(['queued', 'processing', 'progress']);
    expect(first[0]!.data).toMatchObject({ id: taskId, status: 'queued' });
    expect(first[2]!.data).toEqual({ id: taskId, status: 'processing', progress: { stage: 'downloading input' } });
    await expect.poll(() => held.length).toBeGreaterThan(0);
    releaseInputs();
    const rest = await stream.rest();
    const all = [...first, ...rest];
    expect(all.at(-1)!.event).toBe('completed');
    expect(types(all).filter((type) => type !== 'progress')).toEqual(['queued', 'processing', 'completed']);
    expect(increasing(ids(all))).toBe(true);
    const read = await call(gateway, 'GET', `/generations/${taskId}`, { key: developer.key });
    expect(all.at(-1)!.data).toEqual(read.body);
    expect(read.body.status).toBe('completed');
  });

  it('an ended task: its whole history at once, then closes; resumed after its last event: 204', async () => {
    const taskId = await quickTask();
    const live = await openEventStream(gateway, `/generations/${taskId}/events`, { key: developer.key });
    const history = await live.rest();
    const replayed = await (
      await openEventStream(gateway, `/generations/${taskId}/events`, { key: developer.key })
    ).rest();
    expect(replayed).toEqual(history);
    expect(types(history)[0]).toBe('queued');
    expect(['completed', 'failed']).toContain(history.at(-1)!.event);
    const resumed = await openEventStream(gateway, `/generations/${taskId}/events`, {
      key: developer.key,
      lastEventId: history.at(-1)!.id,
    });
    expect(resumed.status).toBe(204);
  });

  it('a reconnect with Last-Event-ID resumes after that event: nothing lost, nothing repeated', async () => {
    const taskId = await heldTask();
    const before = await openEventStream(gateway, `/generations/${taskId}/events`, { key: developer.key });
    const seen = [await before.next(), await before.next()];
    before.close();
    // Events happen while nobody listens: the input arrives and the task completes.
    await expect.poll(() => held.length).toBeGreaterThan(0);
    releaseInputs();
    await expect
      .poll(async () => (await call(gateway, 'GET', `/generations/${taskId}`, { key: developer.key })).body.status, {
        timeout: 30_000,
      })
      .toBe('completed');
    const after = await openEventStream(gateway, `/generations/${taskId}/events`, {
      key: developer.key,
      lastEventId: seen.at(-1)!.id,
    });
    const resumed = await after.rest();
    const whole = await (
      await openEventStream(gateway, `/generations/${taskId}/events`, { key: developer.key })
    ).rest();
    expect([...seen, ...resumed]).toEqual(whole);
    expect(resumed.length).toBeGreaterThan(0);
  });

  it('sends `: keep-alive` while the task waits', async () => {
    const taskId = await heldTask();
    const stream = await openEventStream(gateway, `/generations/${taskId}/events`, { key: developer.key });
    await expect.poll(() => stream.comments.filter((comment) => comment === 'keep-alive').length).toBeGreaterThan(1);
    stream.close();
  });

  it('refuses as GET does: no key 401, an unknown or another account’s task 404, a bad Last-Event-ID 400', async () => {
    const taskId = await quickTask();
    const anonymous = await openEventStream(gateway, `/generations/${taskId}/events`);
    expect(anonymous).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    const foreign = await openEventStream(gateway, `/generations/${taskId}/events`, { key: other.key });
    expect(foreign).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const unknown = await openEventStream(gateway, `/generations/gen_${'0'.repeat(22)}/events`, {
      key: developer.key,
    });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const badId = await openEventStream(gateway, `/generations/${taskId}/events`, {
      key: developer.key,
      lastEventId: 'yesterday',
    });
    expect(badId).toMatchObject({ status: 400, body: { error: 'validation_error' } });
    expect(badId.body.message).toMatch(/Last-Event-ID/);
  });
});

describe('GET /events', () => {
  it("carries every one of the account's tasks, not another account's, and resumes with Last-Event-ID", async () => {
    const stream = await openEventStream(gateway, '/events', { key: developer.key });
    expect(stream.status).toBe(200);
    const foreign = await quickTask(other.key);
    const [a, b] = [await heldTask(), await quickTask()];
    const seen: StreamEvent[] = [];
    const finals = () => seen.filter((event) => event.event === 'completed' || event.event === 'failed');
    while (!finals().some((event) => event.data.id === b)) seen.push(await stream.next());
    stream.close();
    // (Earlier tests' tasks may still end meanwhile: they are this account's too.)
    expect(seen.some((event) => event.data.id === a)).toBe(true);
    expect(seen.some((event) => event.data.id === foreign)).toBe(false);
    expect(types(seen.filter((event) => event.data.id === b))[0]).toBe('queued');

    // Task a completes while the stream is closed; the resumed stream carries on from the last event seen.
    releaseInputs();
    const resumed = await openEventStream(gateway, '/events', { key: developer.key, lastEventId: seen.at(-1)!.id });
    const later: StreamEvent[] = [];
    while (!later.some((event) => event.event === 'completed' && event.data.id === a)) later.push(await resumed.next());
    resumed.close();
    const ofA = [...seen, ...later].filter((event) => event.data.id === a);
    const history = await (await openEventStream(gateway, `/generations/${a}/events`, { key: developer.key })).rest();
    expect(ofA.map((event) => event.id)).toEqual(history.map((event) => event.id));
    expect(ofA.at(-1)!.data).toEqual(history.at(-1)!.data);
    const all = [...seen, ...later].map((event) => event.id);
    expect(new Set(all).size).toBe(all.length);
  });

  it('answers HEAD with the headers alone, at once', async () => {
    const head = await fetch(`${gateway.app.url}/api/v1/events`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${developer.key}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
  });

  it('stays open with heartbeats while nothing happens; a task token is refused', async () => {
    const stream = await openEventStream(gateway, '/events', { key: other.key });
    await expect.poll(() => stream.comments.filter((comment) => comment === 'keep-alive').length).toBeGreaterThan(1);
    stream.close();
    const anonymous = await openEventStream(gateway, '/events');
    expect(anonymous).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
  });
});

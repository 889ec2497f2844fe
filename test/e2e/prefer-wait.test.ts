// `Prefer: wait=N` on POST /generations and GET /generations/{id} through the real stack (dev server, PostgreSQL,
// the worker's real local engine): a task that ends within the wait is answered whole in one request, one that does
// not is answered as without the header once the wait is up, and a hundred callers waiting at once hold no database
// connections (the wait is a long poll on the workflow, not a loop over the row).
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, postGeneration, startGeneration } from '../helpers/http.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';

// Room for the tasks held on purpose (their inputs never answer) besides the ones meant to end, and for the load
// test's hundred waits of one account from one address (capped by default at 10 and 20).
const gateway = useGateway(() => ({
  providers: { local: { concurrency: 16 } },
  longLived: { perAccount: 1_000, perAddress: 1_000, perProcess: 10_000 },
}));
const developer = useFundedDeveloper(gateway);

// `/held-…` is never answered (its task stays processing); `/missing.png` is 404; anything else is the PNG.
const inputs = usePngInputServer({
  respond: (req, res, sendPng) => {
    if (req.url?.startsWith('/held-')) return;
    if (req.url === '/missing.png') return void res.writeHead(404).end();
    sendPng();
  },
});

const upscale = (path: string) => ({ type: 'upscale', model: 'local/lanczos', image_url: `${inputs.url()}${path}` });
const waitFor = (seconds: number | string) => ({ Prefer: `respond-async, wait=${seconds}` });
// Time bounds below only tell "held" from "answered at once" (waits of 30–60 s); they leave room for a loaded CI box.
const timed = async <T>(run: () => Promise<T>) => {
  const started = Date.now();
  const result = await run();
  return { result, ms: Date.now() - started };
};

/** Connections PostgreSQL has open to the gateway's database, counted from outside its pool. */
async function connectionsToGatewayDatabase(admin: pg.Client): Promise<number> {
  const { rows } = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [
    gateway.database.name,
  ]);
  return rows[0].n as number;
}

describe('Prefer: wait on POST /generations', () => {
  it('a local task that ends within the wait: 201 with the whole task, Preference-Applied and Location', async () => {
    const created = await postGeneration(gateway, {
      key: developer.key,
      body: upscale('/input.png'),
      headers: waitFor(30),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('preference-applied')).toBe('wait=30');
    expect(created.headers.get('location')).toBe(`/api/v1/generations/${created.body.id}`);
    expect(created.body).toMatchObject({ status: 'completed', model: 'local/lanczos', type: 'upscale' });
    expect(created.body.outputs).toHaveLength(1);
    expect(created.body.output).toBe(created.body.outputs[0]);
    // The same task a plain read answers.
    const read = await call(gateway, 'GET', `/generations/${created.body.id}`, { key: developer.key });
    expect(read.body).toEqual(created.body);
  });

  it('a task that fails within the wait: 201 with the failed task', async () => {
    const created = await postGeneration(gateway, {
      key: developer.key,
      body: upscale('/missing.png'),
      headers: waitFor(30),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('preference-applied')).toBe('wait=30');
    expect(created.body).toMatchObject({ status: 'failed', cost: 0, error: expect.any(String) });
  });

  it('a task still running when the wait is up: the usual 202 after the wait, without Preference-Applied', async () => {
    const { result: created, ms } = await timed(() =>
      postGeneration(gateway, { key: developer.key, body: upscale('/held-post.png'), headers: waitFor(2) }),
    );
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ status: 'queued', poll_url: `/api/v1/generations/${created.body.id}` });
    expect(created.headers.get('preference-applied')).toBeNull();
    expect(ms).toBeGreaterThanOrEqual(2_000);
    expect(ms).toBeLessThan(10_000);
  });

  it('without the header, or with one asking for no wait: 202 at once, as always', async () => {
    const headerSets: Record<string, string>[] = [
      {},
      { Prefer: 'wait=0' },
      { Prefer: 'wait=soon' },
      { Prefer: 'respond-async' },
    ];
    for (const headers of headerSets) {
      const { result: created, ms } = await timed(() =>
        postGeneration(gateway, { key: developer.key, body: upscale('/held-plain.png'), headers }),
      );
      expect(created.status).toBe(202);
      expect(created.headers.get('preference-applied')).toBeNull();
      expect(ms).toBeLessThan(10_000);
    }
  });
});

describe('Prefer: wait on GET /generations/{id}', () => {
  it('held until the task ends: 200 with the ended task and Preference-Applied', async () => {
    const taskId = await startGeneration(gateway, { key: developer.key, body: upscale('/input-get.png') });
    const read = await call(gateway, 'GET', `/generations/${taskId}`, { key: developer.key, headers: waitFor(30) });
    expect(read.status).toBe(200);
    expect(read.headers.get('preference-applied')).toBe('wait=30');
    expect(read.body).toMatchObject({ id: taskId, status: 'completed' });
  });

  it('a wait over 60 seconds is applied as 60; a task that ended already answers at once', async () => {
    const taskId = await startGeneration(gateway, { key: developer.key, body: upscale('/input-ended.png') });
    await call(gateway, 'GET', `/generations/${taskId}`, { key: developer.key, headers: waitFor(30) });
    const { result: read, ms } = await timed(() =>
      call(gateway, 'GET', `/generations/${taskId}`, { key: developer.key, headers: { Prefer: 'WAIT=3600' } }),
    );
    expect(read.headers.get('preference-applied')).toBe('wait=60');
    expect(read.body.status).toBe('completed');
    expect(ms).toBeLessThan(10_000);
  });

  it('someone else’s task: 404 at once, as without the header', async () => {
    const taskId = await startGeneration(gateway, { key: developer.key, body: upscale('/input-other.png') });
    const other = await call(gateway, 'POST', '/agents/register', { body: { agent_name: 'other' } });
    const { result: read, ms } = await timed(() =>
      call(gateway, 'GET', `/generations/${taskId}`, { key: other.body.api_key, headers: waitFor(30) }),
    );
    expect(read).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(ms).toBeLessThan(10_000);
  });

  it('100 callers waiting at once hold no database connections; other requests answer meanwhile', async () => {
    const taskId = await startGeneration(gateway, { key: developer.key, body: upscale('/held-get.png') });
    const admin = new pg.Client({ connectionString: inject('databaseAdminUrl') });
    await admin.connect();
    try {
      const waits = Array.from({ length: 100 }, () =>
        timed(() => call(gateway, 'GET', `/generations/${taskId}`, { key: developer.key, headers: waitFor(8) })),
      );
      // While all of them wait: reads of the balance and a new admission (it goes through Temporal too) answer fast,
      // and the database sees no more connections than the pool's (pg's default of 10).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const connections: number[] = [];
      for (let sample = 0; sample < 5; sample += 1) {
        const balance = await timed(() => call(gateway, 'GET', '/account/balance', { key: developer.key }));
        expect(balance.result.status).toBe(200);
        expect(balance.ms).toBeLessThan(4_000);
        connections.push(await connectionsToGatewayDatabase(admin));
      }
      const admitted = await timed(() => postGeneration(gateway, { key: developer.key, body: upscale('/held-2.png') }));
      expect(admitted.result.status).toBe(202);
      expect(admitted.ms).toBeLessThan(6_000);
      expect(Math.max(...connections)).toBeLessThanOrEqual(10);

      const answered = await Promise.all(waits);
      for (const { result, ms } of answered) {
        expect(result.status).toBe(200);
        expect(result.body).toMatchObject({ id: taskId, status: 'processing' });
        expect(result.headers.get('preference-applied')).toBeNull();
        expect(ms).toBeGreaterThanOrEqual(8_000);
      }
      console.log(
        `100 waits: slowest ${Math.max(...answered.map((a) => a.ms))} ms; connections seen ${connections.join(', ')}`,
      );
    } finally {
      await admin.end();
    }
  });
});

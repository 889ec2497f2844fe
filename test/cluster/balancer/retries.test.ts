// The cluster's Caddy, built, configured and started by the cluster's own code, in front of two stand-in api processes
// that fail the first receipt of each request as a dying process does (socket closed with no answer) or a draining
// one (503). A request that reached a process is sent again only if a second one answers with the first's result: a
// keyless POST /generations sent twice would be admitted and charged twice.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCaddy } from '../../../cluster/caddy.ts';
import { caddyBuild, clusterBinaries } from '../../../cluster/cluster-tools.ts';
import { ensureGoBuild } from '../../../cluster/go-build.ts';
import type { SupervisedProcess } from '../../../src/infra/processes/supervised-process.ts';
import { closeServer, listenLocally } from '../../../harness/local-server.ts';
import { freePort } from '../../../harness/ports.ts';

type Failure = 'no answer' | 'draining' | 'none';

interface Receipt {
  process: string;
  method: string;
  path: string;
}

/** What the stand-ins received, and how each fails the first receipt of a path. */
const standIns = { failure: 'no answer' as Failure, received: [] as Receipt[] };

function fail(req: IncomingMessage, res: ServerResponse): void {
  if (standIns.failure === 'draining')
    res
      .writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' })
      .end(JSON.stringify({ error: 'service_unavailable', message: 'The server is shutting down' }));
  else req.socket.destroy();
}

function standIn(name: string): Server {
  return createServer((req, res) => {
    // Health checks leave no idle connection in the balancer's pool: closing one as a request is written to it is
    // a reset after sending, which the balancer rightly does not retry for a keyless POST (not what "gone" tests).
    if (req.url === '/healthz') return void res.writeHead(200, { connection: 'close' }).end('ok');
    req.resume();
    req.on('end', () => {
      const path = req.url!;
      const first = !standIns.received.some((each) => each.path === path);
      standIns.received.push({ process: name, method: req.method!, path });
      if (first && standIns.failure !== 'none') return fail(req, res);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ process: name }));
    });
  });
}

let paths = 0;
const nextPath = (path = '/api/v1/generations') => `${path}?attempt=${++paths}`;
const receiptsOf = (path: string) => standIns.received.filter((each) => each.path === path);

async function startBalancer() {
  const servers = { 'api-1': standIn('api-1'), 'api-2': standIn('api-2') };
  const backends = await Promise.all(
    Object.entries(servers).map(async ([name, server]) => ({ name, port: (await listenLocally(server)).port })),
  );
  const dataDir = await mkdtemp(join(tmpdir(), 'gateway-balancer-'));
  const port = await freePort();
  let proxy: SupervisedProcess | undefined;
  try {
    await ensureGoBuild(caddyBuild, (line) => console.log(`[balancer] ${line}`));
    const binary = clusterBinaries.caddy;
    proxy = await startCaddy({ binary, dataDir, logDir: dataDir, host: '127.0.0.1', port, backends });
  } finally {
    if (!proxy) await Promise.all(Object.values(servers).map(closeServer));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    servers,
    stop: async () => {
      await proxy.stop(5_000);
      await Promise.all(Object.values(servers).map(closeServer));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The status the client got, 0 when its connection was closed with no answer (as a balancer may for a dead server). */
async function statusOf(url: string, init: RequestInit): Promise<number> {
  const answered = await fetch(url, init).catch(() => undefined);
  await answered?.arrayBuffer();
  return answered?.status ?? 0;
}

const generation = JSON.stringify({ model: 'local/lanczos', type: 'upscale', image_url: 'https://example.com/a.png' });
const json = { 'content-type': 'application/json' };

describe('the cluster balancer, when a process fails a request', () => {
  let balancer: Awaited<ReturnType<typeof startBalancer>>;
  beforeAll(async () => {
    balancer = await startBalancer();
  });
  afterAll(() => balancer?.stop());
  beforeEach(() => {
    standIns.received.length = 0;
  });

  for (const failure of ['no answer', 'draining'] as const) {
    it(`does not send again a POST without Idempotency-Key that reached it (${failure})`, async () => {
      standIns.failure = failure;
      for (const headers of [{ ...json, authorization: 'Bearer gw_key' }, json]) {
        const path = nextPath();
        const status = await statusOf(`${balancer.url}${path}`, { method: 'POST', headers, body: generation });
        // The draining process's 503 is passed on; a closed socket is a 502, or the client's connection closed.
        expect(failure === 'draining' ? [503] : [0, 502]).toContain(status);
        expect(receiptsOf(path)).toHaveLength(1);
      }
    });

    it(`sends a GET, a POST with Idempotency-Key and an x402-paid POST again to the other process (${failure})`, async () => {
      standIns.failure = failure;
      const requests: RequestInit[] = [
        { method: 'GET', headers: { authorization: 'Bearer gw_key' } },
        { method: 'POST', headers: { ...json, authorization: 'Bearer gw_key', 'idempotency-key': 'k-1' } },
        { method: 'POST', headers: { ...json, 'payment-signature': 'eyJ4NDAyVmVyc2lvbiI6Mn0=' } },
        { method: 'POST', headers: { ...json, 'x-payment': 'eyJ4NDAyVmVyc2lvbiI6MX0=' } },
      ];
      for (const request of requests) {
        const path = nextPath();
        const body = request.method === 'POST' ? generation : undefined;
        const answered = await fetch(`${balancer.url}${path}`, { ...request, body });
        expect(answered.status, JSON.stringify(request.headers)).toBe(200);
        const receipts = receiptsOf(path);
        expect(receipts).toHaveLength(2);
        expect(await answered.json()).toEqual({ process: receipts[1]!.process });
        expect(receipts[0]!.process).not.toBe(receipts[1]!.process);
      }
    });
  }

  for (const failure of ['no answer', 'draining'] as const) {
    it(`does not send again a POST elsewhere than /generations that reached it, whatever its headers (${failure})`, async () => {
      standIns.failure = failure;
      // Only POST /generations derives what it makes from an Idempotency-Key or a payment: elsewhere a second copy
      // registers a second agent, mints a second key, redelivers twice.
      const keyed = { ...json, authorization: 'Bearer gw_key', 'idempotency-key': 'k-2' };
      const paid = { ...json, 'payment-signature': 'eyJ4NDAyVmVyc2lvbiI6Mn0=' };
      const requests: [string, Record<string, string>][] = [
        ['/api/v1/agents/register', { ...json, 'idempotency-key': 'k-3' }],
        ['/api/v1/agents/register', paid],
        ['/api/v1/agents/topup', { ...json, 'x-payment': 'eyJ4NDAyVmVyc2lvbiI6MX0=' }],
        ['/api/v1/keys', keyed],
        ['/api/v1/uploads', keyed],
        ['/api/v1/webhooks/deliveries/dlv_1/redeliver', keyed],
        ['/api/v1/generations/gen_1/cancel', keyed],
        ['/mcp', paid],
        ['/api/v1/generations/', keyed],
      ];
      for (const [base, headers] of requests) {
        const path = nextPath(base);
        const status = await statusOf(`${balancer.url}${path}`, { method: 'POST', headers, body: generation });
        expect(failure === 'draining' ? [503] : [0, 502], `${base} ${JSON.stringify(headers)}`).toContain(status);
        expect(receiptsOf(path), `${base} ${JSON.stringify(headers)}`).toHaveLength(1);
      }
    });
  }

  it('does not send again a POST with an API key beside a payment header but no Idempotency-Key', async () => {
    standIns.failure = 'no answer';
    const path = nextPath();
    const headers = { ...json, authorization: 'Bearer gw_key', 'x-payment': 'eyJ4NDAyVmVyc2lvbiI6MX0=' };
    const status = await statusOf(`${balancer.url}${path}`, { method: 'POST', headers, body: generation });
    expect([0, 502]).toContain(status);
    expect(receiptsOf(path)).toHaveLength(1);
  });
});

describe('the cluster balancer, when a process is gone', () => {
  let balancer: Awaited<ReturnType<typeof startBalancer>>;
  beforeAll(async () => {
    balancer = await startBalancer();
  });
  afterAll(() => balancer?.stop());

  it('sends a POST without Idempotency-Key that could not reach it to the other process', async () => {
    standIns.failure = 'none';
    await closeServer(balancer.servers['api-1']);
    // Round robin: of two POSTs sent before the health checks take api-1 out (two failed checks a second apart), one
    // is sent to api-1 first; each arrives once, at api-2, and is answered.
    for (const path of [nextPath(), nextPath()]) {
      const answered = await fetch(`${balancer.url}${path}`, { method: 'POST', headers: json, body: generation });
      expect(answered.status).toBe(200);
      expect(await answered.json()).toEqual({ process: 'api-2' });
      expect(receiptsOf(path).map(({ process }) => process)).toEqual(['api-2']);
    }
  });
});

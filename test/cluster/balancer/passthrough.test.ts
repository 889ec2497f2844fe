// The cluster's Caddy in front of one stand-in api process: what it writes reaches the caller as it is written (an
// event stream, an MCP answer held open), answers leave without a header the balancer added, and the process reads
// the caller's address from X-Forwarded-For, which the balancer sets itself (a caller's own value is dropped).
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balancerIdleMs, caddyConfig, startCaddy } from '../../../cluster/caddy.ts';
import { apiKeepAliveMs } from '../../../src/net/keep-alive.ts';
import { caddyBuild, clusterBinaries } from '../../../cluster/cluster-tools.ts';
import { ensureGoBuild } from '../../../cluster/go-build.ts';
import type { SupervisedProcess } from '../../../src/infra/processes/supervised-process.ts';
import { closeServer, listenLocally } from '../../../harness/local-server.ts';
import { freePort } from '../../../harness/ports.ts';

/** Streams held open by the stand-in, ended by the test once it has read their first line. */
const open: ServerResponse[] = [];

function answer(req: IncomingMessage, res: ServerResponse): void {
  if (req.url === '/healthz') return void res.end('ok');
  if (req.url === '/stream') {
    // Not an event stream, which Caddy flushes whatever it is told: a buffer in the config (response_buffers) fails this.
    res.writeHead(200, { 'content-type': 'application/x-ndjson' }).write('{"line":1}\n');
    return void open.push(res);
  }
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ forwardedFor: req.headers['x-forwarded-for'] ?? null }));
}

describe('the cluster balancer, passing requests through', () => {
  const standIn = createServer(answer);
  let proxy: SupervisedProcess;
  let url: string;
  let dataDir: string;
  beforeAll(async () => {
    await ensureGoBuild(caddyBuild, (line) => console.log(`[balancer] ${line}`));
    const backends = [{ name: 'api-1', port: (await listenLocally(standIn)).port }];
    dataDir = await mkdtemp(join(tmpdir(), 'gateway-balancer-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const options = { binary: clusterBinaries.caddy, dataDir, logDir: dataDir, host: '127.0.0.1', port, backends };
    proxy = await startCaddy(options);
  });
  afterAll(async () => {
    for (const res of open.splice(0)) res.end();
    await proxy?.stop(5_000);
    await closeServer(standIn);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('passes a streamed answer on as it is written', async () => {
    const response = await fetch(`${url}/stream`);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('{"line":1}\n');
    for (const res of open.splice(0)) res.end();
    await reader.cancel();
  }, 10_000);

  it("sets X-Forwarded-For to the caller's address and adds no header to the answer", async () => {
    const response = await fetch(`${url}/api/v1/models`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(await response.json()).toEqual({ forwardedFor: '127.0.0.1' });
    expect(response.headers.get('via')).toBeNull();
    expect(response.headers.get('server')).toBeNull();
  });

  it('closes an idle pooled connection before the api process would (no 502 for a request written onto a closing one)', () => {
    const config = caddyConfig({ host: '127.0.0.1', port: 1, backends: [{ name: 'api-1', port: 2 }] });
    const [, proxy] = config.apps.http.servers.gateway.routes[0]!.handle;
    expect(proxy).toMatchObject({ transport: { keep_alive: { enabled: true, idle_timeout: `${balancerIdleMs}ms` } } });
    // Wide margin: the api's idle clock starts when it has written an answer, the balancer's only once it has read it.
    expect(apiKeepAliveMs - balancerIdleMs).toBeGreaterThanOrEqual(30_000);
  });
});

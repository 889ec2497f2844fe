// The load balancer in front of the api processes: Caddy, built from the Go module proxy like the cluster's other
// programs, health-checking each process's /healthz, so one that stops (or says it is down) is taken out of the
// rotation within seconds and put back when it answers. Configured with Caddy's native JSON: nothing to parse.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startSupervised, type SupervisedProcess, waitUntil } from '../src/infra/processes/supervised-process.ts';

export interface Backend {
  name: string;
  port: number;
}

/**
 * The one POST that names its retry: POST /api/v1/generations, whose task id derives from its Idempotency-Key or,
 * without an API key, from its x402 payment. Elsewhere neither header is read (a registration, a key, an upload sent
 * twice is made twice). The exact path only: another spelling the api would route the same is simply not sent again.
 */
const namesItsRetry =
  '{http.request.method} == "POST" && {http.request.uri.path} == "/api/v1/generations" && (' +
  '{http.request.header.Idempotency-Key} != "" || ({http.request.header.Authorization} == "" && ' +
  '({http.request.header.Payment-Signature} != "" || {http.request.header.X-Payment} != "")))';

/**
 * Who may have a request sent twice: an idempotent method, or the POST that names its retry. A keyless POST
 * /generations sent twice would be admitted and charged twice. A CEL expression over Caddy's request placeholders
 * (an absent header reads "").
 */
const answersTheSameTwice = `{http.request.method} in ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"] || (${namesItsRetry})`;

/**
 * When a request that reached a process is sent to the next one. Caddy always retries a request that never reached
 * one (the connection failed); a matcher set reading only the request decides after a failure once it was sent (a
 * closed socket, no answer); one reading the response decides on an answer (a draining process's 503).
 */
const retryMatch = [
  { expression: answersTheSameTwice },
  { expression: `{http.reverse_proxy.status_code} in [500, 502, 503, 504] && (${answersTheSameTwice})` },
];

/** A request held open (an event stream, `Prefer: wait`, an MCP wait) may stay silent this long. */
export const balancerTimeouts = { connect: '5s', requestHeaders: '30s', silence: '10m' };

/** An idle pooled connection to a process is closed by the balancer well before the process would close it. */
export const balancerIdleMs = 30_000;

const listenAddress = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

function reverseProxy(backends: Backend[]) {
  return {
    handler: 'reverse_proxy',
    upstreams: backends.map(({ port }) => ({ dial: `127.0.0.1:${port}` })),
    // Event streams and MCP answers pass on as they are written (Caddy's own choice for answers without a length;
    // said here for every answer). No response_buffers: a buffer would hold them.
    flush_interval: -1,
    // A body this size or smaller is kept, so a retry can send it again; a larger one is retried only if it never
    // reached a process (an upload, streamed through).
    request_buffers: 65_536,
    transport: {
      protocol: 'http',
      dial_timeout: balancerTimeouts.connect,
      response_header_timeout: balancerTimeouts.silence,
      read_timeout: balancerTimeouts.silence,
      write_timeout: balancerTimeouts.silence,
      keep_alive: { enabled: true, idle_timeout: `${balancerIdleMs}ms` },
    },
    load_balancing: {
      // Round robin: a retry goes to the next process (least_conn breaks ties at random, so could pick the same one).
      selection_policy: { policy: 'round_robin' },
      retries: 2,
      retry_match: retryMatch,
    },
    health_checks: {
      active: { uri: '/healthz', interval: '1s', timeout: '1s', expect_status: 200, passes: 2, fails: 2 },
    },
  };
}

/** Caddy's JSON configuration: the admin endpoint off, plain HTTP on one address, long timeouts for held requests. */
export function caddyConfig(options: { host: string; port: number; backends: Backend[] }) {
  return {
    admin: { disabled: true, config: { persist: false } },
    apps: {
      http: {
        servers: {
          gateway: {
            listen: [listenAddress(options.host, options.port)],
            automatic_https: { disable: true },
            read_header_timeout: balancerTimeouts.requestHeaders,
            read_idle_timeout: balancerTimeouts.silence,
            write_idle_timeout: balancerTimeouts.silence,
            idle_timeout: balancerTimeouts.requestHeaders,
            routes: [
              {
                handle: [
                  // Answers leave as the api wrote them: no `Via: 1.1 Caddy` added.
                  { handler: 'headers', response: { delete: ['Via'], deferred: true } },
                  reverseProxy(options.backends),
                ],
              },
            ],
          },
        },
      },
    },
  };
}

export async function startCaddy(options: {
  binary: string;
  dataDir: string;
  logDir: string;
  host: string;
  port: number;
  backends: Backend[];
}): Promise<SupervisedProcess> {
  const configFile = join(options.dataDir, 'caddy.json');
  // Caddy's own state (certificates it will not need, its autosave) stays under the cluster's folder.
  const home = join(options.dataDir, 'caddy');
  await mkdir(home, { recursive: true });
  await writeFile(configFile, `${JSON.stringify(caddyConfig(options), null, 2)}\n`);
  const proxy = await startSupervised({
    name: 'caddy',
    command: options.binary,
    args: ['run', '--config', configFile],
    env: { ...process.env, XDG_CONFIG_HOME: home, XDG_DATA_HOME: home },
    cwd: options.dataDir,
    logFile: join(options.logDir, 'caddy.log'),
    // SIGTERM is its graceful stop: it stops listening and lets requests end.
    stopSignal: 'SIGTERM',
  });
  const url = `http://127.0.0.1:${options.port}/healthz`;
  try {
    await waitUntil(proxy, `answering ${url}`, async () => (await fetch(url)).ok, 30_000);
  } catch (error) {
    await proxy.stop(2_000);
    throw error;
  }
  return proxy;
}

// The load balancer in front of the api processes: Debian's HAProxy, health-checking each one's /healthz, so an api
// process that stops (or says it is down) is taken out of the rotation within seconds and put back when it answers.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startSupervised, type SupervisedProcess, waitUntil } from '../src/infra/processes/supervised-process.ts';

const candidates = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/bin/haproxy'];

/** HAProxy's path, or an error saying how to install it. */
export function findHaproxy(): string {
  const onPath = (process.env.PATH ?? '').split(':').map((dir) => join(dir, 'haproxy'));
  const found = [...onPath, ...candidates].find((path) => existsSync(path));
  if (!found)
    throw new Error(
      '`npm run cluster` balances its api processes with HAProxy, which is not installed. On Debian or Ubuntu: ' +
        "`sudo apt-get install -y haproxy` (after `sudo apt-get update`); elsewhere, your system's haproxy package.",
    );
  return found;
}

export interface Backend {
  name: string;
  port: number;
}

/** The configuration: long timeouts, because `Prefer: wait` and the task event stream hold a request open. */
export function haproxyConfig(options: { host: string; port: number; backends: Backend[] }): string {
  return [
    'global',
    '  maxconn 4096',
    '',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 10m',
    '  timeout server 10m',
    '  timeout http-request 30s',
    // The api processes trust the loopback proxy (TRUST_PROXY) and read the caller's address from this header.
    '  option forwardfor',
    // A request that failed (no connection, an empty answer, a 5xx such as a draining process's 503) is sent again
    // to another process only where that cannot do anything twice: see the backend's disable-l7-retry.
    '  retries 2',
    '  retry-on all-retryable-errors',
    '  option redispatch 1',
    '',
    'frontend gateway',
    `  bind ${options.host}:${options.port}`,
    '  default_backend api',
    '',
    'backend api',
    // Long requests (an event stream, Prefer: wait) weigh on a process: send new ones where fewer are open.
    '  balance leastconn',
    '  option httpchk GET /healthz',
    '  http-check expect status 200',
    '  default-server inter 1s fall 2 rise 2',
    // A request that may have reached a process is sent again only if a second one answers the first's result: an
    // idempotent method, an Idempotency-Key, or an x402 payment (its task id derives from the payment, which only
    // counts without an API key). Any other (a keyless POST /generations) is retried only if it never reached one.
    '  acl idempotent_method method GET HEAD OPTIONS PUT DELETE',
    '  acl has_idempotency_key req.hdr(idempotency-key),length gt 0',
    '  acl has_payment req.hdr(payment-signature),length gt 0',
    '  acl has_payment req.hdr(x-payment),length gt 0',
    '  acl has_api_key req.hdr(authorization) -m found',
    '  http-request disable-l7-retry unless idempotent_method || has_idempotency_key || has_payment !has_api_key',
    ...options.backends.map(({ name, port }) => `  server ${name} 127.0.0.1:${port} check`),
    '',
  ].join('\n');
}

export async function startHaproxy(options: {
  binary: string;
  dataDir: string;
  logDir: string;
  host: string;
  port: number;
  backends: Backend[];
}): Promise<SupervisedProcess> {
  const configFile = join(options.dataDir, 'haproxy.cfg');
  await writeFile(configFile, haproxyConfig(options));
  const proxy = await startSupervised({
    name: 'haproxy',
    command: options.binary,
    // -db: stay in the foreground, ours to stop. SIGUSR1 is its soft stop: it stops listening and lets requests end.
    args: ['-db', '-f', configFile],
    cwd: options.dataDir,
    logFile: join(options.logDir, 'haproxy.log'),
    stopSignal: 'SIGUSR1',
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

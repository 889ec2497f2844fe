// Issue 36, point 8: a Temporal frontend that requires TLS, reached through the SDK's environment configuration. The
// dev server sits behind a TLS terminator (node:tls, ALPN h2) that refuses plaintext, with a test-only CA and server
// certificate (test/fixtures/temporal-tls, valid to 2126); both connection kinds — the api's client and the worker's
// native connection — take their TLS settings from TEMPORAL_TLS and TEMPORAL_TLS_SERVER_CA_CERT_PATH alone.
import { connect, type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { connectOptions } from '../../src/use-cases/temporal/connection.ts';
import { createDevServerEnv } from '../helpers/temporal.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'temporal-tls');

/** Decrypts TLS and passes the bytes on to the plaintext frontend; a client that does not speak TLS gets nothing. */
async function tlsTerminator(frontend: string): Promise<{ server: Server; address: string }> {
  const [host, port] = frontend.split(':');
  const server = createServer(
    {
      key: readFileSync(join(fixtures, 'server.key')),
      cert: readFileSync(join(fixtures, 'server.pem')),
      ALPNProtocols: ['h2'],
    },
    (socket) => {
      const upstream = connect(Number(port), host);
      socket.pipe(upstream).pipe(socket);
      const close = () => (socket.destroy(), upstream.destroy());
      socket.on('error', close);
      upstream.on('error', close);
    },
  );
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { server, address: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('a Temporal frontend that requires TLS', () => {
  let env: TestWorkflowEnvironment;
  let terminator: { server: Server; address: string };

  beforeAll(async () => {
    env = await createDevServerEnv();
    terminator = await tlsTerminator(env.address);
  }, 120_000);

  afterAll(async () => {
    terminator?.server.close();
    await env?.teardown();
  });

  const temporalOf = (variables: Record<string, string>) =>
    loadConfig({ TEMPORAL_ADDRESS: terminator.address, TEMPORAL_NAMESPACE: 'default', ...variables }, []).temporal;

  it('refuses a connection without TLS settings', async () => {
    const temporal = temporalOf({});
    await expect(Connection.connect({ ...connectOptions(temporal), connectTimeout: '3s' })).rejects.toThrow();
  });

  it('takes the api client and the worker connection over TLS from TEMPORAL_TLS and the CA path', async () => {
    const temporal = temporalOf({
      TEMPORAL_TLS: 'true',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(fixtures, 'ca.pem'),
    });
    const client = await Connection.connect(connectOptions(temporal));
    const described = await client.workflowService.describeNamespace({ namespace: temporal.namespace });
    expect(described.namespaceInfo?.name).toBe('default');
    await client.close();
    const worker = await NativeConnection.connect(connectOptions(temporal));
    const info = await worker.workflowService.getSystemInfo({});
    expect(info.serverVersion).toBeTruthy();
    await worker.close();
  });
});

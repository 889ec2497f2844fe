// A real S3-compatible server for a test file: moto's server (PyPI, installed into .tools by `npm test`'s setup),
// in memory, on a free port, with one bucket. Any credentials are accepted; requests are signed as for AWS.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { s3ServerDir } from '../../src/infra/tools.ts';
import { freePort } from '../../harness/ports.ts';

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  /** What an S3 client needs to reach it. */
  client: S3ClientConfig;
  /** Stops the server (a store that goes down); `start()` brings it back on the same port, empty. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function answering(endpoint: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`moto_server exited with ${server.exitCode}`);
    const up = await fetch(`${endpoint}/moto-api/`).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`moto_server did not answer at ${endpoint} within 30 s`);
}

/**
 * `sdkEnvironment`: also points the AWS SDK at it through the SDK's own variables (AWS_ENDPOINT_URL_S3, credentials,
 * region), as an operator does for a store that is not AWS, so the gateway's configured storage finds it.
 */
export function useS3Server(bucket = 'gateway-test', { sdkEnvironment = false } = {}): TestS3Server {
  let server: ChildProcess | undefined;
  const state = { port: 0 };
  const handle: TestS3Server = {
    endpoint: '',
    bucket,
    client: {},
    async start() {
      server = spawn(
        'python3',
        [join(s3ServerDir, 'bin', 'moto_server'), '-H', '127.0.0.1', '-p', String(state.port)],
        {
          env: { ...process.env, PYTHONPATH: s3ServerDir },
          stdio: 'ignore',
        },
      );
      await answering(handle.endpoint, server);
      await new S3Client(handle.client).send(new CreateBucketCommand({ Bucket: bucket }));
    },
    async stop() {
      const running = server;
      server = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    },
  };
  beforeAll(async () => {
    state.port = await freePort();
    handle.endpoint = `http://127.0.0.1:${state.port}`;
    handle.client = {
      endpoint: handle.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    };
    await handle.start();
    if (sdkEnvironment)
      Object.assign(process.env, {
        AWS_ENDPOINT_URL_S3: handle.endpoint,
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_REGION: 'us-east-1',
      });
  }, 60_000);
  afterAll(() => handle.stop());
  return handle;
}

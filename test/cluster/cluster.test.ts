// `npm run cluster` as an operator runs it, in a scratch DATA_DIR on free ports: every part a process of its own,
// a task admitted through Caddy runs on a worker process and its output lands in the store; an api and a worker
// process killed under load lose nothing and charge nothing twice; SIGTERM stops everything; a second start builds
// nothing and finds the data of the first; Ctrl-C to the process group with tasks running stops everything, and the
// next start ends those tasks.
import type { GatewayProcess } from '../../harness/stacks/gateway-process.ts';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma } from '../../src/db/prisma.ts';
import { type ClusterSecrets, clusterSecretsFile } from '../../cluster/cluster-secrets.ts';
import { metricsTargetsFile } from '../../cluster/metrics-targets.ts';
import { withPgClient } from '../../src/infra/pg-client.ts';
import { readRuntimeFile, runtimeFile } from '../../src/runtime-file.ts';
import { launchCluster, pidOf, scratchClusterEnv, stopCluster as stopped } from '../helpers/cluster.ts';
import { runGenctl } from '../helpers/genctl.ts';
import { call, waitForEnd } from '../helpers/http.ts';
import { ledgerProblems } from '../../harness/ledger-check.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { mcp2026 } from '../helpers/mcp-2026.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { alive, processesUsing } from '../../harness/processes.ts';
import { startReceiver } from '../../harness/webhook-receiver.ts';

const inputs = usePngInputServer({ width: 24, height: 16 });
let dataDir = '';
let env: Record<string, string> = {};
let running: GatewayProcess | undefined;

async function startCluster() {
  running = await launchCluster(env);
  return running;
}

async function stopCluster(cluster: GatewayProcess): Promise<number | null> {
  const code = await stopped(cluster);
  running = undefined;
  return code;
}

const gateway = { app: { url: '' } };

const readSecrets = async (): Promise<ClusterSecrets> =>
  JSON.parse(await readFile(clusterSecretsFile(join(dataDir, 'cluster')), 'utf8'));

/** The cluster's store as a client with these credentials sees it. */
const storeAs = (credentials: { accessKeyId: string; secretAccessKey: string }) =>
  new S3Client({
    endpoint: `http://127.0.0.1:${env.CLUSTER_S3_PORT}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials,
  });

/** POST /generations under an Idempotency-Key, again on a network error or a 5xx (a process that died mid-request). */
async function postRetrying(key: string, idempotencyKey: string, body: object): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const answered = await call(gateway, 'POST', '/generations', {
      key,
      body,
      headers: { 'idempotency-key': idempotencyKey },
    }).catch((error: unknown) => ({ status: 0, body: String(error) }));
    if (answered.status === 202) return answered.body.id;
    if (attempt === 10 || (answered.status > 0 && answered.status < 500))
      throw new Error(`POST answered ${answered.status}: ${JSON.stringify(answered.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

beforeAll(async () => {
  env = await scratchClusterEnv('gateway-cluster-');
  dataDir = env.DATA_DIR!;
  gateway.app.url = `http://127.0.0.1:${env.PORT}`;
});

afterEach(async () => {
  if (running) await stopCluster(running);
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

// Three cluster starts, two recoveries and 60 tasks: 95 s on a quiet 2-core machine, two or three times that under
// CI's load.
// The bound is this suite's own, since the genctl helper sets a file-wide one.
describe('npm run cluster', { timeout: 600_000 }, () => {
  it('serves tasks through the load balancer, loses nothing to a killed api and worker process, stops in order and keeps its data', async () => {
    const first = await startCluster();
    const banner = first.output();
    for (const name of ['api-1', 'api-2', 'worker-1', 'worker-2', 'Temporal UI', 'PostgreSQL', 'Storage'])
      expect(banner).toMatch(new RegExp(`^\\s+${name}\\s`, 'm'));
    expect(banner).toContain(`API           http://localhost:${env.PORT}/api/v1`);
    expect(banner).toMatch(/Temporal {6}127\.0\.0\.1:\d+, server v1\.32\.2 on PostgreSQL, 4 history shards/);
    expect((await fetch(`http://127.0.0.1:${env.TEMPORAL_UI_PORT}/`)).status).toBe(200);
    // Each api and worker process serves its metrics on a port of its own, listed for Prometheus.
    const targets: { targets: string[]; labels: { job: string } }[] = JSON.parse(
      await readFile(metricsTargetsFile(join(dataDir, 'cluster')), 'utf8'),
    );
    expect(targets.map(({ labels }) => labels.job).sort()).toEqual(
      ['gateway-api', 'gateway-api', 'gateway-worker', 'gateway-worker', 'temporal-sdk', 'temporal-sdk'].sort(),
    );
    for (const {
      targets: [target],
      labels,
    } of targets) {
      const scraped = await fetch(`http://${target}/metrics`);
      expect(scraped.status, target).toBe(200);
      expect(await scraped.text()).toContain(labels.job === 'temporal-sdk' ? 'temporal_' : 'gateway_');
    }

    // genctl, told only DATA_DIR, finds the cluster's database and Temporal through runtime.json.
    const status = await runGenctl({ DATA_DIR: dataDir }, ['status', '--json']);
    expect(status.json).toMatchObject({
      file: runtimeFile(dataDir),
      api_url: `http://localhost:${env.PORT}`,
      temporal_address: `127.0.0.1:${env.CLUSTER_TEMPORAL_PORT}`,
    });
    // 61 generations within a minute or so: more than a free account's rate limit lets through.
    const developer = await runGenctl({ DATA_DIR: dataDir }, [
      'developers',
      'create',
      '--name',
      'cluster',
      '--tier',
      'starter',
      '--json',
    ]);
    expect(developer.code, developer.stderr).toBe(0);
    const { developer_id: account, api_key: key } = developer.json;
    const credited = await runGenctl({ DATA_DIR: dataDir }, [
      'accounts',
      'credit',
      account,
      '--amount',
      '5',
      '--reason',
      'cluster test',
      '--json',
    ]);
    expect(credited.code, credited.stderr).toBe(0);

    const created = await call(gateway, 'POST', '/generations', {
      key,
      body: { model: 'local/lanczos', type: 'upscale', image_url: `${inputs.url()}/photo.png` },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const task = await waitForEnd(gateway, { key, pollUrl: created.body.poll_url, timeoutMs: 60_000 });
    expect(task).toMatchObject({ status: 'completed' });
    expect(task.output).toMatch(new RegExp(`^http://localhost:${env.PORT}/files/`));
    const download = await fetch(task.output.replace('localhost', '127.0.0.1'));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toContain('image/png');
    const png = Buffer.from(await download.arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // The output is an object in the cluster's store, not a file of any process. The store and the database take
    // only this data directory's own secrets, not the fixed ones earlier clusters had.
    const secrets = await readSecrets();
    const store = storeAs({ accessKeyId: secrets.storeAccessKeyId, secretAccessKey: secrets.storeSecretAccessKey });
    const listed = await store.send(new ListObjectsV2Command({ Bucket: 'gateway', Prefix: `${task.id}/` }));
    expect(listed.Contents ?? []).toHaveLength(1);
    const fixed = storeAs({ accessKeyId: 'gateway', secretAccessKey: 'gateway-secret' });
    await expect(fixed.send(new ListObjectsV2Command({ Bucket: 'gateway' }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 403 },
    });
    const databaseUrl = new URL((await readRuntimeFile(dataDir))!.databaseUrl!);
    expect(databaseUrl.password).toBe(secrets.postgresPassword);
    const fixedPassword = { host: '127.0.0.1', port: Number(databaseUrl.port), user: 'gateway', database: 'gateway' };
    await expect(withPgClient({ ...fixedPassword, password: 'gateway' }, async () => {})).rejects.toMatchObject({
      code: '28P01',
    });

    // Under load, one api and one worker process die: Caddy routes around the api, Temporal hands the worker's
    // tasks to the other. Nothing is lost, nothing charged twice, every task's webhook logged delivered once.
    const prisma = createPrisma((await readRuntimeFile(dataDir))!.databaseUrl!);
    const hooks = await startReceiver();
    try {
      const killed = ['api-1', 'worker-1'].map((name) => pidOf(banner, name));
      for (const pid of killed) expect(alive(pid)).toBe(true);
      // A ken-burns render started as an MCP task on api-1 itself, which dies below: another process answers for it.
      const apiOne = new RegExp(`^\\s+api-1\\s+(http://127\\.0\\.0\\.1:\\d+)`, 'm').exec(banner)![1]!;
      const creator = await connectMcp(apiOne, key);
      const render = {
        type: 'image-to-video',
        model: 'local/ken-burns',
        image_url: `${inputs.url()}/photo.png`,
        duration: 3,
      };
      const { task: mcpTask } = await creator.request(
        { method: 'tools/call', params: { name: 'generate', arguments: render, task: {} } },
        CreateTaskResultSchema,
      );
      await creator.close();
      // And one as a 2026-07-28 task (the tasks extension), on api-1 too.
      const modernTask = await mcp2026(apiOne, key).rpc('tools/call', { name: 'generate', arguments: render });
      expect(modernTask.result, JSON.stringify(modernTask)).toMatchObject({ resultType: 'task', status: 'working' });
      const posted: Promise<string>[] = [];
      for (let index = 0; index < 40; index++) {
        if (index === 15) for (const pid of killed) process.kill(pid, 'SIGKILL');
        posted.push(
          postRetrying(key, `load-${index}`, {
            ...{ model: 'local/lanczos', type: 'upscale', image_url: `${inputs.url()}/photo.png` },
            webhook_url: `http://127.0.0.1:${hooks.port}/load/${index}`,
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const ids = await Promise.all(posted);
      expect(new Set(ids).size).toBe(40);
      const ended = await Promise.all(
        ids.map((id) => waitForEnd(gateway, { key, pollUrl: `/api/v1/generations/${id}`, timeoutMs: 240_000 })),
      );
      expect(ended.map(({ status }) => status)).toEqual(Array(40).fill('completed'));
      const reader = await connectMcp(gateway.app.url, key);
      try {
        await expect
          .poll(async () => (await reader.experimental.tasks.getTask(mcpTask.taskId)).status, {
            timeout: 240_000,
            interval: 1_000,
          })
          .toBe('completed');
        const result = await reader.experimental.tasks.getTaskResult(mcpTask.taskId, CallToolResultSchema);
        const link = result.content.find((item) => item.type === 'resource_link') as { uri: string; size: number };
        const video = await fetch(link.uri.replace('localhost', '127.0.0.1'));
        expect(video.headers.get('content-type')).toBe('video/mp4');
        expect((await video.arrayBuffer()).byteLength).toBe(link.size);
      } finally {
        await reader.close();
      }
      // tasks/get of the 2026 task, answered by api-2 (api-1 is dead), carries its result and a downloadable link.
      const modernReader = mcp2026(gateway.app.url, key);
      const modernTaskId = modernTask.result!.taskId as string;
      await expect
        .poll(async () => (await modernReader.rpc('tasks/get', { taskId: modernTaskId })).result?.status, {
          timeout: 240_000,
          interval: 1_000,
        })
        .toBe('completed');
      const modernEnded = (await modernReader.rpc('tasks/get', { taskId: modernTaskId })).result!;
      const modernLink = (modernEnded.result.content as { type: string; uri: string; size: number }[]).find(
        (item) => item.type === 'resource_link',
      )!;
      const modernVideo = await fetch(modernLink.uri.replace('localhost', '127.0.0.1'));
      expect(modernVideo.headers.get('content-type')).toBe('video/mp4');
      expect((await modernVideo.arrayBuffer()).byteLength).toBe(modernLink.size);
      expect(await ledgerProblems(prisma, account)).toEqual([]);
      await expect.poll(() => new Set(hooks.received.map(({ path }) => path)).size, { timeout: 120_000 }).toBe(40);
      await expect
        .poll(
          () => prisma.webhookDelivery.count({ where: { taskId: { in: ids }, statusCode: { gte: 200, lt: 300 } } }),
          { timeout: 30_000 },
        )
        .toBe(40);
    } finally {
      await hooks.close();
      await prisma.$disconnect();
    }
    for (let i = 0; i < 20; i++) expect((await fetch(`${gateway.app.url}/healthz`)).status).toBe(200);

    expect(await stopCluster(first), first.output()).toBe(0);
    expect(processesUsing(dataDir)).toEqual([]);
    expect(existsSync(runtimeFile(dataDir))).toBe(false);
    for (const name of ['api-2', 'worker-1', 'worker-2', 'Temporal UI', 'Temporal', 'Storage'])
      expect(alive(pidOf(banner, name)), name).toBe(false);

    // A second start builds nothing, and the task and its output are still there.
    const second = await startCluster();
    expect(second.output()).not.toContain('[cluster] building');
    expect(await readSecrets()).toEqual(secrets);
    // Temporal started alone: it did not try to join the ring members its previous run left (30–60 s lost).
    const temporalLog = await readFile(join(dataDir, 'cluster', 'logs', 'temporal.log'), 'utf8');
    expect(temporalLog.split('\n').filter((line) => line.includes('bootstrap ringpop'))).toEqual([]);
    const again = await call(gateway, 'GET', `/generations/${task.id}`, { key });
    expect(again.body).toMatchObject({ id: task.id, status: 'completed', output: task.output });
    const kept = await fetch(task.output.replace('localhost', '127.0.0.1'));
    expect(Buffer.from(await kept.arrayBuffer())).toEqual(png);

    // A terminal's Ctrl-C reaches the whole process group while tasks run: everything stops, and the next start ends
    // every one of them, each charged once.
    const interrupted = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        postRetrying(key, `ctrl-c-${index}`, {
          ...{ model: 'local/espeak', type: 'text-to-audio' },
          prompt: `Interrupted number ${index}. `.repeat(20),
        }),
      ),
    );
    process.kill(-second.pid, 'SIGINT');
    expect(await second.exited, second.output()).toBe(0);
    running = undefined;
    expect(processesUsing(dataDir)).toEqual([]);
    const third = await startCluster();
    const resumed = await Promise.all(
      interrupted.map((id) => waitForEnd(gateway, { key, pollUrl: `/api/v1/generations/${id}`, timeoutMs: 240_000 })),
    );
    expect(resumed.map(({ status }) => status)).toEqual(Array(20).fill('completed'));
    const database = createPrisma((await readRuntimeFile(dataDir))!.databaseUrl!);
    try {
      expect(await ledgerProblems(database, account)).toEqual([]);
    } finally {
      await database.$disconnect();
    }
    expect(await stopCluster(third), third.output()).toBe(0);
    expect(processesUsing(dataDir)).toEqual([]);
  });
});

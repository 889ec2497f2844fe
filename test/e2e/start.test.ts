// `npm start` as a user runs it (node scripts/start.mjs is what the npm script runs): embedded PostgreSQL,
// the Temporal dev server, the local chain, API and worker come up; a deposit on the local chain is credited;
// Temporal going away shows in /healthz; SIGTERM leaves no process behind; a second start keeps the data.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import OpenAI, { toFile } from 'openai';
import pg from 'pg';
import sharp from 'sharp';
import { createPublicClient, http } from 'viem';
import { describe, expect, it } from 'vitest';
import { apiEndpoints } from '../../src/api/resources/index.ts';
import { projectRoot } from '../../src/infra/project-root.ts';
import { localChainFile, readLocalChainFile } from '../../src/chain/local-chain-file.ts';
import { testUsdcAbi } from '../../src/chain/test-usdc.ts';
import { runtimeFile } from '../../src/runtime-file.ts';
import { pingWorkflow } from '../../workflows/index.ts';
import { runGenctl } from '../helpers/genctl.ts';
import { startOpenAIStandIn } from '../stand-ins/openai-compatible.ts';
import { alive, processesUsing, useNpmStart } from '../helpers/npm-start.ts';

// Not the default chain name: the chain's name reaching deposit_addresses shows the API got the resolved config.
const npmStart = useNpmStart('gateway-e2e-', { LOCAL_CHAIN_NAME: 'polygon' });
const { launch, startService, stopService, api } = npmStart;

/** Status codes of two GET /healthz written on one connection `idleMs` apart (the second fails if it was closed). */
async function answersTwiceOnOneConnection(port: number, idleMs: number): Promise<number[]> {
  const socket = connect(port, '127.0.0.1');
  const statuses: number[] = [];
  let answered = () => {};
  socket.on('data', (chunk) => {
    for (const match of chunk.toString().matchAll(/^HTTP\/1\.1 (\d{3})/gm)) statuses.push(Number(match[1]));
    answered();
  });
  const ask = () =>
    new Promise<void>((resolve, reject) => {
      answered = resolve;
      socket.once('close', () => reject(new Error(`the api closed the connection after ${statuses.length} answers`)));
      socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    });
  try {
    await ask();
    await setTimeout(idleMs);
    await ask();
    return statuses;
  } finally {
    socket.destroy();
  }
}

describe('npm start', () => {
  it('runs the whole service, reports outages, stops cleanly and keeps its data', async () => {
    // An OpenAI-compatible upstream (a stand-in speaking its protocol) for the models served through one.
    const picture = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#204060' } })
      .png()
      .toBuffer();
    const upstream = await startOpenAIStandIn({
      png: picture,
      mp3: Buffer.from('ID3-stand-in'),
      transcript: { text: 'unused', duration: 1 },
    });
    const first = await startService({ env: { OPENAI_BASE_URL: upstream.baseUrl, OPENAI_API_KEY: 'sk-upstream' } });
    expect(first.output()).toContain(`Temporal UI   http://localhost:${npmStart.env.TEMPORAL_UI_PORT}`);
    expect(first.output()).toContain(`Docs          http://localhost:${npmStart.env.PORT}/docs`);
    expect(first.output()).toContain(`Console       http://localhost:${npmStart.env.PORT}/console`);
    expect(first.output()).toMatch(
      /Chain {9}LOCAL DEVELOPMENT CHAIN \(anvil\) http:\/\/127\.0\.0\.1:\d+, chain id \d+ \(x402: eip155:\d+\), test USDC 0x[0-9a-fA-F]{40}, served as "polygon" — not a real network/,
    );
    expect(processesUsing(npmStart.dataDir).length).toBeGreaterThanOrEqual(3);
    // The compiled service runs (dist/, kept current by setup): its watchdog is started from beside the compiled module.
    const children = execFileSync('ps', ['--ppid', String(first.child.pid), '-o', 'args='], { encoding: 'utf8' });
    expect(children).toContain(join(projectRoot, 'dist', 'src', 'infra', 'processes', 'watchdog-process.mjs'));
    const chain = (await readLocalChainFile(npmStart.dataDir))!;
    expect(chain).toMatchObject({ chain: 'polygon', chainId: 84532, pid: expect.any(Number) });
    expect(alive(chain.pid!)).toBe(true);

    expect((await api('/healthz')).status).toBe(200);
    // Past Node's default 5 s, meanwhile the rest goes on: a balancer's pooled connection is not closed under it.
    const reusedAfterIdle = answersTwiceOnOneConnection(Number(npmStart.env.PORT), 6_000);
    const document = (await (await api('/api/v1/openapi.json')).json()) as any;
    expect(Object.keys(document.paths)).toHaveLength(new Set(apiEndpoints.map((endpoint) => endpoint.path)).size);
    expect((await api('/docs')).status).toBe(200);
    const ui = await fetch(`http://127.0.0.1:${npmStart.env.TEMPORAL_UI_PORT}/`);
    expect(ui.status).toBe(200);

    // The in-process worker serves workflows, and data lands in both stores.
    const connection = await Connection.connect({ address: `127.0.0.1:${npmStart.env.TEMPORAL_DEV_SERVER_PORT}` });
    const client = new Client({ connection });
    const result = await client.workflow.execute(pingWorkflow, {
      taskQueue: 'gateway',
      workflowId: 'ping-e2e',
      args: [{}],
    });
    expect(result.database).toMatch(/^PostgreSQL/);
    await connection.close();
    expect(await reusedAfterIdle).toEqual([200, 200]);
    const databaseUrl = `postgresql://gateway:gateway@127.0.0.1:${npmStart.env.EMBEDDED_POSTGRES_PORT}/gateway`;
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    await db.query(`INSERT INTO accounts (id, kind, name, updated_at) VALUES ('dev_keep', 'developer', 'kept', now())`);
    await db.end();

    // An agent's address is on the local chain under its name; a transfer there is credited through the worker.
    const registered = (await (
      await api('/api/v1/agents/register', { method: 'POST', body: { agent_name: 'e2e' } })
    ).json()) as any;
    expect(Object.keys(registered.deposit_addresses)).toEqual(['polygon']);
    const depositAddress = registered.deposit_addresses.polygon as `0x${string}`;
    const sent = await runGenctl({ DATA_DIR: npmStart.dataDir }, [
      'chain',
      'send',
      '--to',
      depositAddress,
      '--amount',
      '5',
      '--json',
    ]);
    expect(sent.code, sent.stderr).toBe(0);

    // genctl, told nothing but DATA_DIR, finds the ports this start took (none of them the defaults).
    const status = await runGenctl({ DATA_DIR: npmStart.dataDir }, ['status', '--json']);
    expect(status.json).toMatchObject({
      file: runtimeFile(npmStart.dataDir),
      api_url: `http://localhost:${npmStart.env.PORT}`,
      database_url: `postgresql://gateway:***@127.0.0.1:${npmStart.env.EMBEDDED_POSTGRES_PORT}/gateway`,
      temporal_address: `127.0.0.1:${npmStart.env.TEMPORAL_DEV_SERVER_PORT}`,
      temporal_ui_url: `http://localhost:${npmStart.env.TEMPORAL_UI_PORT}`,
    });
    const developer = await runGenctl({ DATA_DIR: npmStart.dataDir }, [
      'developers',
      'create',
      '--name',
      'found',
      '--json',
    ]);
    expect(developer.code, developer.stderr).toBe(0);

    const claim = await api('/api/v1/agents/deposit', {
      method: 'POST',
      key: registered.api_key,
      body: { chain: 'polygon', tx_hash: sent.json.tx_hash },
    });
    expect(claim.status, await claim.clone().text()).toBeLessThan(300);
    await expect
      .poll(
        async () => ((await (await api('/api/v1/agents/balance', { key: registered.api_key })).json()) as any).balance,
        {
          timeout: 30_000,
          interval: 500,
        },
      )
      .toBe('6.00');

    // The official openai client, changed only in baseURL and apiKey: models, speech, an image, chat completions
    // (whole and streamed) and a video, each a task in the history, charged.
    const openai = new OpenAI({
      baseURL: `http://127.0.0.1:${npmStart.env.PORT}/openai/v1`,
      apiKey: registered.api_key,
    });
    expect((await openai.models.retrieve('local/espeak')).id).toBe('local/espeak');
    const speech = await openai.audio.speech
      .create({ model: 'local/espeak', input: 'Started with npm start.', voice: 'alloy' })
      .withResponse();
    expect(
      Buffer.from(await speech.data.arrayBuffer())
        .subarray(0, 4)
        .toString(),
    ).toBe('RIFF');
    const image = await openai.images
      .generate({ model: 'openai/gpt-image-1', prompt: 'a square', size: '1024x1024', response_format: 'b64_json' })
      .withResponse();
    expect(Buffer.from(image.data.data![0]!.b64_json!, 'base64').equals(picture)).toBe(true);
    const messages = [{ role: 'user' as const, content: 'Name a colour.' }];
    const chat = await openai.chat.completions.create({ model: 'openai/qwen3-235b', messages }).withResponse();
    expect(chat.data.choices[0]!.message.content).toContain('Name a colour.');
    let streamed = '';
    for await (const chunk of await openai.chat.completions.create({
      model: 'openai/qwen3-235b',
      messages,
      stream: true,
    }))
      streamed += chunk.choices[0]?.delta.content ?? '';
    expect(streamed).toBe(chat.data.choices[0]!.message.content);
    const video = await openai.videos.create({
      model: 'local/ken-burns' as 'sora-2',
      prompt: 'across the picture',
      seconds: '3' as '4',
      input_reference: await toFile(picture, 'picture.png', { type: 'image/png' }),
    });
    await expect
      .poll(async () => (await openai.videos.retrieve(video.id)).status, { timeout: 60_000, interval: 500 })
      .toBe('completed');
    const mp4 = Buffer.from(await (await openai.videos.downloadContent(video.id)).arrayBuffer());
    expect(mp4.subarray(4, 8).toString()).toBe('ftyp');
    const history = (await (await api('/api/v1/generations', { key: registered.api_key })).json()) as any;
    const made = [speech, image, chat].map((answer) => answer.response.headers.get('x-generation-id'));
    // The agent's only tasks: these five (the streamed completion is the one not named here).
    expect(history.generations.map((task: { id: string }) => task.id)).toEqual(
      expect.arrayContaining([...made, video.id]),
    );
    expect(history.generations).toHaveLength(5);
    for (const task of history.generations)
      expect(task).toMatchObject({ status: 'completed', cost: expect.any(Number) });
    await upstream.close();

    // Temporal goes away: the API stays up and says what is down.
    const devServer = processesUsing(npmStart.dataDir).find((line) => line.includes('start-dev'))!;
    process.kill(Number(devServer.trim().split(/\s+/)[0]), 'SIGKILL');
    const degraded = await api('/healthz');
    expect(degraded.status).toBe(503);
    expect(((await degraded.json()) as any).message).toMatch(/^Down: temporal/);
    expect(await stopService(first), first.output()).toBe(0);
    expect(processesUsing(npmStart.dataDir)).toEqual([]);
    expect(alive(chain.pid!)).toBe(false);
    expect(existsSync(localChainFile(npmStart.dataDir))).toBe(false);
    expect(existsSync(runtimeFile(npmStart.dataDir))).toBe(false);

    // A second start recovers, with the data of the first.
    const second = await startService();
    expect((await api('/healthz')).status).toBe(200);
    const again = new pg.Client({ connectionString: databaseUrl });
    await again.connect();
    const { rows } = await again.query(`SELECT name FROM accounts WHERE id = 'dev_keep'`);
    await again.end();
    expect(rows).toEqual([{ name: 'kept' }]);
    const reconnection = await Connection.connect({ address: `127.0.0.1:${npmStart.env.TEMPORAL_DEV_SERVER_PORT}` });
    const description = await new Client({ connection: reconnection }).workflow.getHandle('ping-e2e').describe();
    expect(description.status.name).toBe('COMPLETED');
    await reconnection.close();
    // The chain kept its state too: the deposit address still holds what was sent to it.
    const restarted = (await readLocalChainFile(npmStart.dataDir))!;
    const held = await createPublicClient({ transport: http(restarted.rpcUrl) }).readContract({
      address: restarted.usdcAddress,
      abi: testUsdcAbi,
      functionName: 'balanceOf',
      args: [depositAddress],
    });
    expect(held).toBe(5_000_000n);

    expect(await stopService(second), second.output()).toBe(0);
    expect(processesUsing(npmStart.dataDir)).toEqual([]);
    expect(alive(restarted.pid!)).toBe(false);
  }, 240_000);

  it('Ctrl-C to the process group while a request is pending and a workflow busy: 503, exit 0 within the grace time', async () => {
    const graceSeconds = 10;
    const service = await startService({
      // The first test's agent took this address's trial credit for the day; this one needs one too.
      env: { SHUTDOWN_GRACE_SECONDS: String(graceSeconds), TRIAL_CREDITS_PER_ADDRESS_PER_DAY: '10' },
    });
    const registered = (await (
      await api('/api/v1/agents/register', { method: 'POST', body: { agent_name: 'busy' } })
    ).json()) as any;
    // Warm-up: a fresh worker's first workflow task (its bundle loaded) can take over a minute on a loaded machine;
    // one task run to its end first, so the admission below reaches the held rows at once.
    const warm = (await (
      await api('/api/v1/generations', {
        method: 'POST',
        key: registered.api_key,
        body: { type: 'text-to-audio', model: 'local/espeak', prompt: 'Warm up.' },
      })
    ).json()) as any;
    await expect
      .poll(async () => ((await (await api(warm.poll_url, { key: registered.api_key })).json()) as any).status, {
        timeout: 150_000,
        interval: 500,
      })
      .toBe('completed');
    // A transaction of ours holds every balance row: admission's reservation (in the workflow's activity) waits.
    const databaseUrl = `postgresql://gateway:gateway@127.0.0.1:${npmStart.env.EMBEDDED_POSTGRES_PORT}/gateway`;
    const holder = new pg.Client({ connectionString: databaseUrl });
    holder.on('error', () => undefined);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT * FROM balances FOR UPDATE');
    const pending = api('/api/v1/generations', {
      method: 'POST',
      key: registered.api_key,
      body: { type: 'upscale', model: 'local/lanczos', image_url: 'https://inputs.example/a.png' },
    });
    const waiting = async () =>
      (await holder.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`)).rows[0].n;
    // A readiness wait, not a bound: the worker is warm, but the machine may be loaded.
    await expect.poll(waiting, { timeout: 60_000, interval: 200 }).toBeGreaterThan(0);

    const signalled = Date.now();
    process.kill(-service.child.pid!, 'SIGINT');
    const response = await pending;
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({
      error: 'service_unavailable',
      message: expect.stringMatching(/shutting down/),
    });
    const code = await service.exited;
    const elapsed = Date.now() - signalled;
    await holder.end().catch(() => undefined);
    console.log(`shutdown with a pending request and a busy workflow took ${elapsed} ms (grace ${graceSeconds} s)`);
    expect(code, service.output()).toBe(0);
    expect(elapsed).toBeLessThan(graceSeconds * 1000 + 1_000);
    expect(service.output()).not.toMatch(/uncaught|unhandled|Channel has been shut down/i);
    await expect.poll(() => processesUsing(npmStart.dataDir), { timeout: 5_000 }).toEqual([]);
  }, 300_000);

  it('a port taken by another process on TEMPORAL_DEV_SERVER_PORT is a start-up error naming it', async () => {
    const foreign = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    const port = (foreign.address() as { port: number }).port;
    try {
      const service = await launch({ env: { TEMPORAL_DEV_SERVER_PORT: String(port) } });
      const code = await service.exited;
      expect(code).not.toBe(0);
      expect(service.output()).toContain(`Port ${port} (TEMPORAL_DEV_SERVER_PORT) on 127.0.0.1 is already in use`);
      expect(service.output()).not.toContain('Press Ctrl-C to stop.');
      expect(processesUsing(npmStart.dataDir)).toEqual([]);
      expect(foreign.listening).toBe(true);
    } finally {
      foreign.close();
    }
  }, 120_000);

  it('a port taken by another process on PORT is refused before anything starts, naming PORT', async () => {
    const foreign = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    const port = (foreign.address() as { port: number }).port;
    // A data directory of its own: nothing of it may appear, not even for a moment.
    const ownDir = await mkdtemp(join(tmpdir(), 'gateway-e2e-port-'));
    const seen = new Set<string>();
    const watch = setInterval(() => processesUsing(ownDir).forEach((line) => seen.add(line)), 100);
    try {
      const started = Date.now();
      const service = await launch({ env: { PORT: String(port), DATA_DIR: ownDir } });
      const code = await service.exited;
      const elapsed = Date.now() - started;
      expect(code, service.output()).not.toBe(0);
      expect(service.output()).toContain(`Port ${port} (PORT) on 127.0.0.1 is already in use`);
      expect(service.output()).not.toContain('Press Ctrl-C to stop.');
      expect(elapsed, service.output()).toBeLessThan(30_000);
      expect([...seen, ...processesUsing(ownDir)]).toEqual([]);
      for (const part of ['postgres', 'temporal', 'anvil']) expect(existsSync(join(ownDir, part)), part).toBe(false);
      expect(foreign.listening).toBe(true);
    } finally {
      clearInterval(watch);
      foreign.close();
      await rm(ownDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('kill -9 of the service: PostgreSQL, the dev server and the chain do not outlive it', async () => {
    const service = await startService();
    const chain = (await readLocalChainFile(npmStart.dataDir))!;
    expect(processesUsing(npmStart.dataDir).length).toBeGreaterThanOrEqual(2);
    expect(alive(chain.pid!)).toBe(true);
    const killed = Date.now();
    process.kill(service.child.pid!, 'SIGKILL');
    await service.exited;
    await expect.poll(() => processesUsing(npmStart.dataDir), { timeout: 10_000, interval: 200 }).toEqual([]);
    await expect.poll(() => alive(chain.pid!), { timeout: 10_000, interval: 200 }).toBe(false);
    console.log(`children gone ${Date.now() - killed} ms after kill -9 of the service`);

    // The next start finds its ports free and its data intact.
    const next = await startService();
    expect((await api('/healthz')).status).toBe(200);
    expect(await stopService(next), next.output()).toBe(0);
  }, 240_000);
});

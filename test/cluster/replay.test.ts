// genctl tasks replay on the cluster, found by DATA_DIR alone: tasks that failed on a missing input are replayed
// once the input is back, in a batch workflow on the cluster's Temporal server, run by its worker processes. Each
// replay completes and is charged once; the same batch again replays nothing.
import { describe, expect, it } from 'vitest';
import { runGenctl } from '../helpers/genctl.ts';
import { postGeneration, waitForEnd } from '../helpers/http.ts';
import { ledgerProblems } from '../../harness/ledger-check.ts';
import { usePngInputServer } from '../helpers/png-input-server.ts';
import { useClusterDeveloper, useSharedCluster } from './shared-cluster.ts';

// The input 404s until the test brings it back.
let inputUp = false;
const inputs = usePngInputServer({
  respond: (_req, res, sendPng) => (inputUp ? sendPng() : res.writeHead(404).end()),
});
const cluster = useSharedCluster();
const developer = useClusterDeveloper(cluster);

describe('genctl tasks replay on the cluster', () => {
  it('replays failed tasks once their input is back, each once, charged once', async () => {
    const body = { type: 'upscale', model: 'local/lanczos', image_url: `${inputs.url()}/photo.png` };
    const created = await Promise.all(
      Array.from({ length: 6 }, () => postGeneration(cluster, { key: developer.key, body })),
    );
    const failed = await Promise.all(
      created.map(({ body: task }) =>
        waitForEnd(cluster, { key: developer.key, pollUrl: task.poll_url, timeoutMs: 60_000 }),
      ),
    );
    expect(failed.map(({ status }) => status)).toEqual(Array(6).fill('failed'));

    inputUp = true;
    const replay = (...args: string[]) =>
      runGenctl({ DATA_DIR: cluster.dataDir }, [
        ...['tasks', 'replay', '--status', 'failed', '--account', developer.accountId, '--json', ...args],
      ]);
    const first = await replay();
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toMatchObject({ state: 'done', selected: 6, replayed: 6, completed: 6, failed_again: 0 });
    for (const { id } of failed) {
      const replays = await cluster.prisma.task.findMany({ where: { replayOf: id } });
      expect(replays.map(({ status }) => status)).toEqual(['completed']);
    }
    const again = await replay();
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ replayed: 0 });
    expect(await cluster.prisma.task.count({ where: { accountId: developer.accountId } })).toBe(12);
    expect(await ledgerProblems(cluster.prisma, developer.accountId)).toEqual([]);
  });
});

// `npm run record-histories [-- --out <dir>]`: records the workflow histories that test/workflows/replay.test.ts
// replays (test/workflows/record/histories.record.ts, outside the test suite's files), into
// test/workflows/histories/ or <dir>. Commit the files with the workflow change they follow.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureSetup, root } from './setup.mjs';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
if (values.out) process.env.HISTORIES_DIR = resolve(values.out);

ensureSetup();
const { startVitest } = await import('vitest/node');
const vitest = await startVitest('test', [], {
  root,
  include: ['test/workflows/record/*.record.ts'],
  watch: false,
});
await vitest?.close();
process.exit(vitest?.state.getCountOfFailedTests() || process.exitCode ? 1 : 0);

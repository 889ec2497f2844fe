// The suite's reporters: the default, and with TEST_TIMINGS_DIR set a JSON report of every file's duration beside it
// (`<dir>/<run>.json`), which is how a fresh clone's run is measured file by file.
import { join } from 'node:path';

type Reporter = string | [string, Record<string, unknown>];

export function reporters(run: 'main' | 'cluster'): Reporter[] {
  const dir = process.env.TEST_TIMINGS_DIR;
  return dir ? ['default', ['json', { outputFile: join(dir, `${run}.json`) }]] : ['default'];
}

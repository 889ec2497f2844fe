// `npm run cluster -- --build`: builds what the cluster runs and no registry ships as binaries, then exits (for CI
// images, or to take the minutes of the first build apart from the first start).
import { ensureClusterTools } from './cluster-tools.ts';

const seconds = await ensureClusterTools((line) => console.log(`[cluster] ${line}`));
for (const [what, took] of Object.entries(seconds))
  console.log(`[cluster] ${what}: ${took ? `built in ${took} s` : 'up to date'}`);

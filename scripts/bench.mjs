// `npm run bench`: set up a fresh clone, then run the benchmarks in this process: each local engine alone
// (bench/local-engines.bench.ts), a 50 MB output through each storage driver (bench/storage.bench.ts, on moto's S3
// server), then generations through the whole embedded service (bench/generations.bench.ts, which ends the process).
// `npm run bench -- --cluster`: only the generations, on `npm run cluster`'s layout (the other two measure one
// engine or one driver alone, the same whatever layout runs them).
import { runTypeScript } from './run-typescript.mjs';
import { ensureS3Server, ensureSetup } from './setup.mjs';

ensureSetup();
if (process.argv.includes('--cluster')) {
  console.error(
    '[bench] --cluster: the local-engine and storage benches are skipped (they do not depend on the layout; run `npm run bench` for them)',
  );
} else {
  ensureS3Server();
  await runTypeScript('bench/local-engines.bench.ts');
  await runTypeScript('bench/storage.bench.ts');
}
await runTypeScript('bench/generations.bench.ts');

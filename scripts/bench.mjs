// `npm run bench`: set up a fresh clone, then run the benchmarks in this process: each local engine alone
// (bench/local-engines.bench.ts), a 50 MB output through each storage driver (bench/storage.bench.ts, on moto's S3
// server), the task history and key policies over a million tasks (bench/self-service.bench.ts), the console's first
// paint on npm start (bench/console.bench.ts), then generations
// through the whole embedded service (bench/generations.bench.ts, which ends the process).
// `npm run bench -- --cluster`: only the generations, on `npm run cluster`'s layout (the other three measure one
// engine, one driver or the database's queries alone, the same whatever layout runs them).
import { runTypeScript } from './run-typescript.mjs';
import { ensureS3Server, ensureSetup } from './setup.mjs';

ensureSetup();
if (process.argv.includes('--cluster')) {
  console.error(
    '[bench] --cluster: the local-engine, storage and self-service benches are skipped (they do not depend on the layout; run `npm run bench` for them)',
  );
} else {
  ensureS3Server();
  await runTypeScript('bench/local-engines.bench.ts');
  await runTypeScript('bench/storage.bench.ts');
  await runTypeScript('bench/self-service.bench.ts');
  await runTypeScript('bench/console.bench.ts');
}
await runTypeScript('bench/generations.bench.ts');

// `npm run bench`: set up a fresh clone, then run the benchmarks in this process: each local engine alone
// (bench/local-engines.bench.ts), a 50 MB output through each storage driver (bench/storage.bench.ts, on moto's S3
// server), then generations through the whole embedded service (bench/generations.bench.ts, which ends the process).
import { runTypeScript } from './run-typescript.mjs';
import { ensureS3Server, ensureSetup } from './setup.mjs';

ensureSetup();
ensureS3Server();
await runTypeScript('bench/local-engines.bench.ts');
await runTypeScript('bench/storage.bench.ts');
await runTypeScript('bench/generations.bench.ts');

// `npm run bench`: set up a fresh clone, then run the benchmarks in this process: each local engine alone
// (bench/local-engines.bench.ts), then generations through the whole embedded service (bench/generations.bench.ts,
// which ends the process).
import { runTypeScript } from './run-typescript.mjs';
import { ensureSetup } from './setup.mjs';

ensureSetup();
await runTypeScript('bench/local-engines.bench.ts');
await runTypeScript('bench/generations.bench.ts');

// `npm run bench`: set up a fresh clone, then run the benchmark (bench/generations.bench.ts) in this process.
import { runTypeScript } from './run-typescript.mjs';
import { ensureSetup } from './setup.mjs';

ensureSetup();
await runTypeScript('bench/generations.bench.ts');

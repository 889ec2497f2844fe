// `npm run chaos`: set up a fresh clone, then run the fault suite (chaos/run.ts) in this process, which prints its
// table and ends the process. Arguments pass through: `npm run chaos -- a d --tasks 100`.
import { runTypeScript } from './run-typescript.mjs';
import { ensureSetup } from './setup.mjs';

ensureSetup();
await runTypeScript('chaos/run.ts');

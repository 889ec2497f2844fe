// `npm start`: set up a fresh clone (npm packages, the Prisma client, the compiled service in dist/, the Temporal
// CLI), then run the compiled service in this same process (so Ctrl-C and SIGTERM reach the code that stops
// PostgreSQL, the Temporal dev server, the worker and the API in order).
import { runCompiled } from './run-compiled.mjs';
import { ensureSetup, loadCheckoutEnv } from './setup.mjs';

loadCheckoutEnv();
const roleArg = process.argv.indexOf('--role');
const role = roleArg >= 0 ? process.argv[roleArg + 1] : process.env.GATEWAY_ROLE;
const embedsTemporal = !process.env.TEMPORAL_ADDRESS && (role === undefined || role === 'all');
ensureSetup({ temporal: embedsTemporal });

await runCompiled('src/main.js');

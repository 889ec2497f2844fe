// `npm run cluster`: set up a fresh clone (as `npm start` does), then run the scale-out layout from this process, so
// Ctrl-C and SIGTERM reach the code that stops its processes in order. `--build` only builds what it runs (once).
import { ensureSetup } from './setup.mjs';
import { runCompiled } from './run-compiled.mjs';

// The Temporal CLI is not needed: the cluster runs Temporal's own server, built by the cluster itself.
ensureSetup({ temporal: false });
await runCompiled(process.argv.includes('--build') ? 'cluster/cluster-build.js' : 'cluster/cluster.js');

// Runs an entry point of the compiled service (dist/, made by `npm run build`) in this process, after reading .env
// if the checkout has one.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { distDir } from './build.mjs';
import { loadCheckoutEnv } from './setup.mjs';

export async function runCompiled(entry) {
  loadCheckoutEnv();
  await import(pathToFileURL(join(distDir, entry)).href);
}

// Runs an entry point of the compiled service (dist/, made by `npm run build`) in this process, after reading .env
// if the checkout has one.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { distDir } from './build.mjs';
import { root } from './setup.mjs';

export async function runCompiled(entry) {
  const envFile = join(root, '.env');
  if (existsSync(envFile)) process.loadEnvFile(envFile);
  await import(pathToFileURL(join(distDir, entry)).href);
}

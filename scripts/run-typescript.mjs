// Runs a TypeScript entry point in this process (tsx), after reading .env if the checkout has one.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './setup.mjs';

export async function runTypeScript(entry) {
  const envFile = join(root, '.env');
  if (existsSync(envFile)) process.loadEnvFile(envFile);
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, entry)).href);
}

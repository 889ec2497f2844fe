// Runs a TypeScript entry point in this process (tsx), after reading .env if the checkout has one.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadCheckoutEnv, root } from './setup.mjs';

export async function runTypeScript(entry) {
  loadCheckoutEnv();
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, entry)).href);
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** workflows/index.ts from source (tsx, tests), or its compiled .js in dist/. */
export function workflowsPath(): string {
  const base = join(import.meta.dirname, '..', '..', '..', 'workflows', 'index');
  return existsSync(`${base}.ts`) ? `${base}.ts` : `${base}.js`;
}

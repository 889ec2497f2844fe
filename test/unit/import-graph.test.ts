// The layering the code promises (STYLE.md): routes → services → workflows/activities → providers and ledger, the
// API only at the top, workflow code free of I/O, and no import cycle anywhere.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const layers = ['src', 'workflows', 'activities'];

interface Edge {
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join('src', 'generated') ? [] : sourceFiles(path);
    return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every `import … from` / `export … from` of a file, resolved to a repository path for relative specifiers. */
function importsOf(file: string): Edge[] {
  const text = readFileSync(join(root, file), 'utf8');
  const pattern = /^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms;
  return [...text.matchAll(pattern)].map((match) => {
    const specifier = match[3] ?? '';
    const to = specifier.startsWith('.') ? relative(root, resolve(root, dirname(file), specifier)) : specifier;
    return { to, typeOnly: Boolean(match[2]) };
  });
}

const files = layers.flatMap(sourceFiles);
const graph = new Map(files.map((file) => [file, importsOf(file)]));

function findCycle(): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): string[] | null => {
    if (state.get(file) === 'done') return null;
    if (state.get(file) === 'open') return [...stack.slice(stack.indexOf(file)), file];
    state.set(file, 'open');
    stack.push(file);
    for (const edge of graph.get(file) ?? []) {
      const cycle = graph.has(edge.to) ? visit(edge.to) : null;
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(file, 'done');
    return null;
  };
  for (const file of files) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return null;
}

describe('import graph', () => {
  it('reads every layer', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(graph.get(join('src', 'app.ts'))?.some((edge) => edge.to.startsWith(join('src', 'api')))).toBe(true);
  });

  it('has no import cycle (type-only imports included)', () => {
    expect(findCycle()).toBeNull();
  });

  it('imports src/api only from the API layer and the app that mounts it', () => {
    const offenders = files.filter(
      (file) =>
        !file.startsWith(join('src', 'api')) &&
        file !== join('src', 'app.ts') &&
        graph.get(file)?.some((edge) => edge.to.startsWith(join('src', 'api') + '/')),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps src free of activities and workflows except for the worker entry point and the Temporal client side', () => {
    const offenders = files.filter((file) => {
      if (!file.startsWith('src/') || file === join('src', 'worker.ts')) return false;
      return graph.get(file)?.some((edge) => {
        if (edge.to.startsWith('activities/')) return true;
        return edge.to.startsWith('workflows/') && !edge.typeOnly && !file.startsWith(join('src', 'temporal'));
      });
    });
    expect(offenders).toEqual([]);
  });

  it('lets workflow code import only @temporalio/workflow, its own files, and types', () => {
    const offenders = files
      .filter((file) => file.startsWith('workflows/'))
      .flatMap((file) =>
        (graph.get(file) ?? [])
          .filter((edge) => !edge.typeOnly && edge.to !== '@temporalio/workflow' && !edge.to.startsWith('workflows/'))
          .map((edge) => `${file} → ${edge.to}`),
      );
    expect(offenders).toEqual([]);
  });
});

// The import rules of docs/architecture.md ("Import rules", numbered as there): no cycle; the API only at the top;
// workflow code free of I/O; src/ sees a workflow only through its contract; every import points down the layers.
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

/** The folder an import rule sees a file in: src/<folder>, or `src` for the entry points at the top of src/. */
function folderOf(file: string): string {
  const parts = file.split('/');
  return parts[0] !== 'src' ? parts[0]! : parts.length === 2 ? 'src' : parts[1]!;
}

// Rule 5's layers, top to bottom: a file imports its own layer or one below, never one above.
const layerOf: Record<string, number> = {
  src: 6,
  cli: 6,
  composition: 6,
  api: 5,
  orchestration: 4,
  generations: 3,
  payments: 3,
  accounts: 3,
  uploads: 3,
  webhooks: 3,
  catalog: 2,
  providers: 2,
  storage: 1,
  chain: 1,
  metrics: 1,
  infra: 1,
  db: 1,
  net: 1,
  config: 1,
  domain: 0,
  generated: 0,
};

// Rule 4: what src/ may take from workflows/ as values: contracts, never a workflow body.
const isWorkflowContract = (path: string) =>
  path.endsWith('.types.ts') || ['workflows/search-attributes.ts', 'workflows/task-queues.ts'].includes(path);

/** The imports of the files under `folder` that break a rule, as `file → target`. */
const offendingImports = (folder: string, breaks: (file: string, edge: Edge) => boolean) =>
  files
    .filter((file) => file.startsWith(folder))
    .flatMap((file) =>
      (graph.get(file) ?? []).filter((edge) => breaks(file, edge)).map((edge) => `${file} → ${edge.to}`),
    );

describe('import graph', () => {
  it('reads every layer', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(graph.get(join('src', 'app.ts'))?.some((edge) => edge.to.startsWith(join('src', 'api')))).toBe(true);
    expect(Object.keys(layerOf)).toEqual(
      expect.arrayContaining(files.map(folderOf).filter((f) => f !== 'workflows' && f !== 'activities')),
    );
  });

  it('1. has no import cycle (type-only imports included)', () => {
    expect(findCycle()).toBeNull();
  });

  it('2. imports src/api only from the API layer and the app that mounts it', () => {
    const offenders = files.filter(
      (file) =>
        !file.startsWith(join('src', 'api')) &&
        file !== join('src', 'app.ts') &&
        graph.get(file)?.some((edge) => edge.to.startsWith(join('src', 'api') + '/')),
    );
    expect(offenders).toEqual([]);
  });

  it('3. lets workflow code import only @temporalio/workflow, its own files, and types', () => {
    const offenders = offendingImports(
      'workflows/',
      (_, edge) => !edge.typeOnly && edge.to !== '@temporalio/workflow' && !edge.to.startsWith('workflows/'),
    );
    expect(offenders).toEqual([]);
  });

  it('4. keeps src to workflow contracts (a type-only import of a body is fine), and activities to the worker', () => {
    const offenders = offendingImports('src/', (file, edge) => {
      if (edge.to.startsWith('activities/')) return file !== join('src', 'worker.ts');
      return edge.to.startsWith('workflows/') && !edge.typeOnly && !isWorkflowContract(edge.to);
    });
    expect(offenders).toEqual([]);
  });

  it('5. points every import in src down the layers (api → orchestration → features → building blocks)', () => {
    const offenders = offendingImports(
      'src/',
      (file, edge) => edge.to.startsWith('src/') && layerOf[folderOf(edge.to)]! > layerOf[folderOf(file)]!,
    );
    expect(offenders).toEqual([]);
  });
});

// The import rules of docs/architecture.md ("Import rules", numbered as there): no cycle; the API only at the top;
// workflow code free of I/O; src/ sees a workflow only through its contract; every import points down the layers;
// the worker side stays beneath the client side; nothing in the service imports the benchmark, the faults or the cluster;
// a payment method's folder is its own.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const layers = ['src', 'workflows', 'activities', 'bench', 'chaos', 'cluster', 'harness'].filter((dir) =>
  existsSync(join(root, dir)),
);

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

/** A cycle among the edges `follows` keeps, or null. */
function findCycle(follows: (file: string, edge: Edge) => boolean): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): string[] | null => {
    if (state.get(file) === 'done') return null;
    if (state.get(file) === 'open') return [...stack.slice(stack.indexOf(file)), file];
    state.set(file, 'open');
    stack.push(file);
    for (const edge of graph.get(file) ?? []) {
      const cycle = graph.has(edge.to) && follows(file, edge) ? visit(edge.to) : null;
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
  'use-cases': 4,
  generations: 3,
  payments: 3,
  ledger: 2,
  accounts: 3,
  deposits: 3,
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

// Inside the feature layer, folders in order too (rule 5): a feature imports only the ones ranked below it, so no two
// features import each other, even through a third.
const featureRank: Record<string, number> = {
  payments: 3,
  generations: 2,
  accounts: 1,
  deposits: 0,
  uploads: 0,
  webhooks: 0,
};

// The workflows' contracts (inputs, results, updates, signals, queries, task queues, search attributes): beneath both
// the workflow bodies and the activities, and all the client side sees of a workflow.
const contracts = 'workflows/contracts/';
const isTemporalWorkflowSafe = (to: string) => to === '@temporalio/workflow';

// The service: the API and worker roles and what they run, i.e. everything but the benchmark, the faults and the cluster.
const isClusterCode = (path: string) => path.startsWith('cluster/');
const isService = (path: string) =>
  ['src/', 'workflows/', 'activities/'].some((dir) => path.startsWith(dir)) && !isClusterCode(path);

// Rule 9: a payment method's folder is private to it, as is each package only it speaks. The files directly in
// src/payments/methods/ (the registry) are the ones that may name a method.
const methodsDir = 'src/payments/methods/';
const methodFolders = readdirSync(join(root, methodsDir), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const methodPackages: Record<string, string[]> = { x402: ['@x402/', 'x402-fetch', 'x402-axios', 'x402-express'] };
const isRegistry = (file: string) => file.startsWith(methodsDir) && !file.slice(methodsDir.length).includes('/');

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
    expect(files.some((file) => file.startsWith(contracts))).toBe(true);
    expect(files.some((file) => file.startsWith('bench/')) && files.some((file) => file.startsWith('chaos/'))).toBe(
      true,
    );
    expect(files.some(isClusterCode)).toBe(true);
    expect(Object.keys(layerOf)).toEqual(
      expect.arrayContaining(files.filter((file) => file.startsWith('src/')).map(folderOf)),
    );
  });

  it('1. has no import cycle anywhere, type-only imports included', () => {
    expect(findCycle(() => true)).toBeNull();
  });

  it('2. imports src/api only from the API layer, the app that mounts it and the composition that builds its services', () => {
    const offenders = files.filter(
      (file) =>
        isService(file) &&
        !file.startsWith(join('src', 'api')) &&
        !file.startsWith(join('src', 'composition') + '/') &&
        file !== join('src', 'app.ts') &&
        graph.get(file)?.some((edge) => edge.to.startsWith(join('src', 'api') + '/')),
    );
    expect(offenders).toEqual([]);
  });

  it('3. lets workflow code import only @temporalio/workflow, its own files, and types', () => {
    const offenders = offendingImports(
      'workflows/',
      (_, edge) => !edge.typeOnly && !isTemporalWorkflowSafe(edge.to) && !edge.to.startsWith('workflows/'),
    );
    expect(offenders).toEqual([]);
  });

  it('3. keeps the contracts beneath the workflows and the activities: no body, no activity, types from src only', () => {
    const offenders = offendingImports(contracts, (_, edge) => {
      if (edge.to.startsWith(contracts) || isTemporalWorkflowSafe(edge.to)) return false;
      if (edge.to.startsWith('workflows/') || edge.to.startsWith('activities/')) return true;
      return !edge.typeOnly;
    });
    expect(offenders).toEqual([]);
  });

  it('4. keeps src to the workflow contracts (never a body, not even its type), and activities to the worker', () => {
    const offenders = offendingImports('src/', (file, edge) => {
      if (edge.to.startsWith('activities/')) return file !== join('src', 'worker.ts');
      return edge.to.startsWith('workflows/') && !edge.to.startsWith(contracts);
    });
    expect(offenders).toEqual([]);
  });

  it('5. points every import in src down the layers (api → use cases → features → building blocks)', () => {
    const offenders = offendingImports(
      'src/',
      (file, edge) => edge.to.startsWith('src/') && layerOf[folderOf(edge.to)]! > layerOf[folderOf(file)]!,
    );
    expect(offenders).toEqual([]);
  });

  it('5. orders the feature folders: payments → generations → accounts → deposits, uploads, webhooks (no folder loop)', () => {
    const offenders = offendingImports('src/', (file, edge) => {
      const [from, to] = [folderOf(file), folderOf(edge.to)];
      return edge.to.startsWith('src/') && from !== to && from in featureRank && to in featureRank
        ? featureRank[to]! >= featureRank[from]!
        : false;
    });
    expect(offenders).toEqual([]);
  });

  it('5. keeps Temporal client code in src/use-cases/temporal: no other use case imports @temporalio at run time', () => {
    const offenders = offendingImports(
      'src/use-cases/',
      (file, edge) =>
        !file.startsWith('src/use-cases/temporal/') && !edge.typeOnly && edge.to.startsWith('@temporalio/'),
    );
    expect(offenders).toEqual([]);
  });

  it("9. keeps a payment method's folder and its packages private: only the registry names a method", () => {
    expect(methodFolders).toEqual(expect.arrayContaining(['balance', 'x402']));
    const offenders = files.filter(isService).flatMap((file) =>
      methodFolders.flatMap((method) => {
        const folder = `${methodsDir}${method}/`;
        if (file.startsWith(folder) || isRegistry(file)) return [];
        const packages = methodPackages[method] ?? [];
        return (graph.get(file) ?? [])
          .filter((edge) => edge.to.startsWith(folder) || packages.some((name) => edge.to.startsWith(name)))
          .map((edge) => `${file} → ${edge.to}`);
      }),
    );
    expect(offenders).toEqual([]);
  });

  it('6. keeps the activities on the worker side: no API, no client side (a starter is given), no entry point', () => {
    const offenders = offendingImports('activities/', (_, edge) => {
      if (edge.to.startsWith('workflows/')) return !edge.to.startsWith(contracts);
      if (!edge.to.startsWith('src/'))
        return ['bench/', 'chaos/', 'cluster/', 'test/'].some((dir) => edge.to.startsWith(dir));
      return ['api', 'use-cases', 'cli', 'src'].includes(folderOf(edge.to)) || isClusterCode(edge.to);
    });
    expect(offenders).toEqual([]);
  });

  it('7. keeps the service free of the benchmark, the faults and the cluster (they import it, never the reverse)', () => {
    const offenders = files
      .filter(isService)
      .flatMap((file) =>
        (graph.get(file) ?? [])
          .filter(
            (edge) => isClusterCode(edge.to) || ['bench/', 'chaos/', 'test/'].some((dir) => edge.to.startsWith(dir)),
          )
          .map((edge) => `${file} → ${edge.to}`),
      );
    expect(offenders).toEqual([]);
  });

  it('8. keeps the benchmark, the faults, the cluster and the harness out of test/ (they share harness/ instead)', () => {
    const outside = ['bench/', 'chaos/', 'cluster/', 'harness/'];
    const offenders = files
      .filter((file) => outside.some((dir) => file.startsWith(dir)))
      .flatMap((file) =>
        (graph.get(file) ?? []).filter((edge) => edge.to.startsWith('test/')).map((edge) => `${file} → ${edge.to}`),
      );
    expect(offenders).toEqual([]);
  });
});

// Issue 36: no function over 100 lines outside tests. Measured with TypeScript's own parser, so a factory that returns
// many closures counts as one long function, as a reader sees it; the console's React components (.tsx) count too.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const folders = [
  'src',
  'workflows',
  'activities',
  'cluster',
  'harness',
  'bench',
  'chaos',
  'scripts',
  'bin',
  'console/src',
];
const longest = 100;

function sourceFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join('src', 'generated') ? [] : sourceFiles(path);
    return /\.(ts|tsx|mts|mjs)$/.test(entry.name) && !/\.d\.m?ts$/.test(entry.name) ? [path] : [];
  });
}

const isFunction = (node: ts.Node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node);

/** Every function of a file longer than the bound, as `path:line (n lines)`. */
function longFunctions(file: string): string[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true, kind);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (isFunction(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
      if (lines > longest) found.push(`${relative(root, join(root, file))}:${first + 1} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  const files = folders.flatMap(sourceFiles);

  it("reads the service, the worker side, the cluster, bench, chaos, scripts and the console's components", () => {
    expect(files.length).toBeGreaterThan(200);
    expect(files.some((file) => file.startsWith('bench/'))).toBe(true);
    expect(files.some((file) => file.startsWith(join('console', 'src')) && file.endsWith('.tsx'))).toBe(true);
  });

  it(`has no function over ${longest} lines outside tests`, () => {
    expect(files.flatMap(longFunctions)).toEqual([]);
  });
});

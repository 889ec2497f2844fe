// The workflow bundle shares the gateway's workflow modules between all the workflows of a worker thread
// (src/use-cases/temporal/shared-workflow-modules.mjs): a module-scope binding that changes, or a collection made
// at module scope, would carry one workflow's state into another. Checked with TypeScript's own parser.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');

function workflowFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return workflowFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const collections = new Set(['Map', 'Set', 'WeakMap', 'WeakSet']);

/** Module-scope `let`/`var` bindings and collections made at module scope, as `path:line`. */
function moduleState(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const at = (node: ts.Node) =>
    `${relative(root, join(root, file))}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  return source.statements.flatMap((statement) => {
    if (!ts.isVariableStatement(statement)) return [];
    if (!(statement.declarationList.flags & ts.NodeFlags.Const)) return [at(statement)];
    return statement.declarationList.declarations.flatMap((declaration) => {
      const init = declaration.initializer;
      // Literals are frozen with the shared module (a change throws); a collection's entries are not.
      const made =
        init && ts.isNewExpression(init) && ts.isIdentifier(init.expression) && collections.has(init.expression.text);
      return made ? [at(declaration)] : [];
    });
  });
}

it('no workflow module keeps state at module scope', () => {
  const files = workflowFiles('workflows');
  expect(files.length).toBeGreaterThan(10);
  expect(files.flatMap(moduleState)).toEqual([]);
});

it('the check finds a module-scope let and a collection made at module scope', () => {
  const file = join('test', 'codebase', 'fixtures', 'stateful-workflow-module.ts.txt');
  expect(moduleState(file).map((where) => where.split(':')[1])).toEqual(['2', '3', '4']);
});

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No import cycles among our own TypeScript files (docs/CONVENTIONS.md "Folders"). Every
 * import counts: values, `import type` and `export … from` alike, and `import('…')` with a
 * literal path (a lazy import hides a cycle, it does not break it). A type-only cycle is harmless
 * at run time (it is erased), but it is the same tangle to a reader: two files that each need
 * the other to be understood, where one piece belongs below both. The one exception is
 * Temporal's own pattern: a workflow's `import type` of the activities (`proxyActivities<Activities>`).
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const FOLDERS = ['api', 'domain', 'workflows', 'activities', 'plugins', 'db', 'lib', 'sandbox', 'scripts', 'bench', 'test', 'sdk'];

type Source = { path: string; text: string };

function sourcesUnder(dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (name === 'node_modules') return [];
    if (statSync(join(root, path)).isDirectory()) return sourcesUnder(path);
    return /\.m?ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative imports of a file, each with whether it is type-only. */
function importsOf(source: Source): { specifier: string; typeOnly: boolean }[] {
  const file = ts.createSourceFile(source.path, source.text, ts.ScriptTarget.ES2022, true);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first && ts.isStringLiteralLike(first)) found.push({ specifier: first.text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found.filter((i) => i.specifier.startsWith('.'));
}

/** Temporal's pattern: the workflow names its activities' types only (lint keeps it type-only). */
const allowed = (from: string, to: string, typeOnly: boolean) => typeOnly && from.startsWith('workflows/') && to.startsWith('activities/');

/** Edges between the given files: `a.js` resolves to `a.ts`, a folder to its `index.ts`. */
function importGraph(sources: Source[]): Map<string, string[]> {
  const paths = new Set(sources.map((s) => s.path));
  const resolve = (from: string, specifier: string): string | undefined => {
    const base = posix.normalize(posix.join(posix.dirname(from), specifier));
    return [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`, `${base}/index.ts`].find((p) => paths.has(p));
  };
  return new Map(
    sources.map((source) => [
      source.path,
      importsOf(source).flatMap(({ specifier, typeOnly }) => {
        const to = resolve(source.path, specifier);
        return to && !allowed(source.path, to, typeOnly) ? [to] : [];
      }),
    ]),
  );
}

/** The strongly connected components of more than one file (or a file importing itself): each holds a cycle. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) ?? 0);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
      onStack.delete(w);
      component.push(w);
    }
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return components;
}

describe('import cycles', () => {
  it('finds a cycle of type imports, of value imports, through a lazy import and through an index, and allows a workflow’s type import of its activities', () => {
    const graph = importGraph([
      { path: 'api/a.ts', text: "import type { B } from './b.js';\nexport type A = B;" },
      { path: 'api/b.ts', text: "import { type A, x } from './a.js';\nexport type B = A | typeof x;" },
      { path: 'db/c.ts', text: "export async function c() { return (await import('./d.js')).d; }" },
      { path: 'db/d.ts', text: "export { c as d } from './c.js';" },
      { path: 'lib/e.ts', text: "import { f } from './f/index.js';\nexport const e = f;" },
      { path: 'lib/f/index.ts', text: "import { e } from '../e.js';\nexport const f = () => e;" },
      { path: 'workflows/w/workflow.ts', text: "import type { Activities } from '../../activities/index.js';\nexport type W = Activities;" },
      { path: 'activities/index.ts', text: "import type { W } from '../workflows/w/workflow.js';\nexport type Activities = { w?: W };" },
      { path: 'lib/g.ts', text: "import type { H } from './h.js';\nexport type G = H;" },
      { path: 'lib/h.ts', text: 'export type H = string;' },
    ]);
    expect(cyclesOf(graph).sort()).toEqual([['api/a.ts', 'api/b.ts'], ['db/c.ts', 'db/d.ts'], ['lib/e.ts', 'lib/f/index.ts']]);
  });

  it('has none among our own TypeScript files', () => {
    const sources = FOLDERS.flatMap(sourcesUnder).map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
    expect(sources.length).toBeGreaterThan(500);
    expect(cyclesOf(importGraph(sources)), 'import cycles: move the piece both files need below both').toEqual([]);
  });
});

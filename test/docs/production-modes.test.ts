import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/production.md "Development and production" names every source file that branches on the
 * mode (NODE_ENV, `config.env`): a new branch without its row there fails here, and so does a
 * row whose file no longer branches.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE_DIRS = ['api', 'activities', 'db', 'domain', 'lib', 'plugins', 'sandbox', 'scripts', 'workflows'];
/** A comparison with a mode name, or a read of NODE_ENV from the process environment. */
const BRANCH = [
  /(?:===|!==|==|!=)\s*['"`](?:production|development|test)['"`]/,
  /['"`](?:production|development|test)['"`]\s*(?:===|!==|==|!=)/,
  /process\.env\.NODE_ENV|process\.env\[['"`]NODE_ENV['"`]\]/,
];

function branchingFiles(): string[] {
  const found: string[] = [];
  for (const dir of SOURCE_DIRS) {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !/\.(ts|mjs|js)$/.test(entry.name)) continue;
      const path = join(entry.parentPath, entry.name);
      const text = readFileSync(path, 'utf8');
      if (BRANCH.some((pattern) => pattern.test(text))) found.push(relative(ROOT, path));
    }
  }
  return found.sort();
}

function documentedFiles(): string[] {
  const doc = readFileSync(join(ROOT, 'docs', 'production.md'), 'utf8');
  const section = /^## Development and production\n([\s\S]*?)(?=^## )/m.exec(doc)?.[1];
  expect(section, 'docs/production.md has a "Development and production" section').toBeDefined();
  const rows = (section as string).split('\n').filter((line) => line.startsWith('| `'));
  return rows.map((row) => /^\| `([^`]+)`/.exec(row)?.[1] as string).sort();
}

describe('the differences between development and production', () => {
  it('are all named in docs/production.md: one row per source file that branches on the mode', () => {
    const files = branchingFiles();
    expect(files).toContain('domain/suppliers/base-url-policy.ts');
    expect(documentedFiles()).toEqual(files);
  });
});

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The README's folder table ("Architecture in one screen") names the tree as it is, at two
 * depths: one row for every top-level folder of code (the folders `tsconfig.json` includes), and
 * in the `domain/` row every area folder of `domain/` (one level), backticked. A folder added,
 * renamed or removed without its row or its name fails here.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** Rows of the table whose header is `| folder | holds |`: first cell's backticked folder → second cell. */
function folderTable(text: string): Map<string, string> {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^\|\s*folder\s*\|\s*holds\s*\|/.test(line));
  const rows = new Map<string, string>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [, folder = '', holds = ''] = line.split('|').map((cell) => cell.trim());
    rows.set(folder.replace(/^`|\/?`$/g, ''), holds);
  }
  return rows;
}

const isFolder = (path: string) => existsSync(join(ROOT, path)) && statSync(join(ROOT, path)).isDirectory();
const codeFolders = (JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] }).include.filter(isFolder).sort();
const table = folderTable(readme);

describe("README's folder table", () => {
  it('has a row for every top-level folder of code, and each row names a folder that exists', () => {
    expect(codeFolders.length).toBeGreaterThan(5);
    expect([...table.keys()].sort()).toEqual(codeFolders);
  });

  it('names every area folder of domain/ in its domain row, and no other', () => {
    const named = [...(table.get('domain') ?? '').matchAll(/`([a-z][a-z0-9-]*)`/g)].map((m) => m[1] ?? '').sort();
    const areas = readdirSync(join(ROOT, 'domain')).filter((name) => isFolder(`domain/${name}`)).sort();
    expect(areas.length).toBeGreaterThan(5);
    expect(named).toEqual(areas);
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Folders and root files a backticked path must start with to be taken for a repository path. */
const REPO_ROOTS = /^(activities|api|bench|db|docs|domain|lib|ops|plugins|sandbox|scripts|sdk|test|workflows)\/|^(README\.md|package\.json|eslint\.config\.js|redocly\.yaml|docker-compose\.yml|Dockerfile|tsconfig(\.build)?\.json|vitest\.config\.ts)$/;

/**
 * Paths named on purpose although they are not in the repository: files the code writes when it
 * runs (git-ignored), or a page another change brings.
 */
const ALLOWED_MISSING = new Set<string>([
  'bench/results/latest.json', // written by every `npm run bench`, git-ignored
]);

/** The page without its fenced code blocks (examples, not references). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

function relativeLinks(page: string, text: string): string[] {
  const links = [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
  return links
    .filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l) && !l.startsWith('#'))
    .map((l) => relative(ROOT, join(ROOT, dirname(page), decodeURI(l.split('#')[0] ?? ''))));
}

function backtickedPaths(text: string): string[] {
  const spans = [...prose(text).matchAll(/`([^`\n]+)`/g)].map((m) => (m[1] ?? '').replace(/:\d+$/, ''));
  // Placeholders (`<id>`, `{id}`, `*`, `…`) and spaces make a path illustrative, not a reference.
  return spans.filter((s) => REPO_ROOTS.test(s) && !/[<>{}*…\s]/.test(s));
}

describe('paths named in README.md and docs/ exist', () => {
  it.each(PAGES)('%s', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const named = [...relativeLinks(page, text), ...backtickedPaths(text)];
    const missing = [...new Set(named)].filter((p) => !ALLOWED_MISSING.has(p) && !existsSync(join(ROOT, p)));
    expect(missing).toEqual([]);
  });

  it('the README links every page of docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const linked = new Set(relativeLinks('README.md', readme));
    expect(PAGES.filter((p) => p !== 'README.md' && !linked.has(p))).toEqual([]);
  });

  it('the README stays under 250 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThan(250);
  });
});

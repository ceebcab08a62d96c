import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { API_NODE_FLAGS, WORKER_NODE_FLAGS } from '../../scripts/lib/node-flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const text = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');

/** Every command line that starts the API or the worker from the build, with the flags before the entry. */
function commandLines(entry: 'dist/api/main.js' | 'dist/activities/worker.js'): string[] {
  const scripts = (JSON.parse(text('package.json')) as { scripts: Record<string, string> }).scripts;
  const lines = Object.values(scripts).filter((line) => line.includes(entry));
  const quoted = (source: string) =>
    [...source.matchAll(/\[("node"[^\]]*)\]/g)].map((m) => (JSON.parse(`[${m[1]}]`) as string[]).join(' ')).filter((line) => line.includes(entry));
  return [...lines, ...quoted(text('Dockerfile')), ...quoted(text('docker-compose.yml'))];
}

describe('heap limits of the API and the worker (scripts/lib/node-flags.ts)', () => {
  it('are on every production command line: npm start / worker, the image and docker-compose.yml', () => {
    const api = commandLines('dist/api/main.js');
    const worker = commandLines('dist/activities/worker.js');
    // npm start, the image's CMD, compose's api; npm run worker, compose's worker.
    expect(api.length).toBeGreaterThanOrEqual(3);
    expect(worker.length).toBeGreaterThanOrEqual(2);
    for (const line of api) for (const flag of API_NODE_FLAGS) expect(line, line).toContain(`node ${flag} `);
    for (const line of worker) for (const flag of WORKER_NODE_FLAGS) expect(line, line).toContain(`node ${flag} `);
  });

  it('are passed by npm run cluster and by the bench', () => {
    expect(text('scripts/lib/cluster.ts')).toMatch(/args: \[\.\.\.API_NODE_FLAGS, [^\]]*'dist\/api\/main\.js'\]/);
    expect(text('scripts/lib/cluster.ts')).toMatch(/args: \[\.\.\.WORKER_NODE_FLAGS, [^\]]*'dist\/activities\/worker\.js'\]/);
    expect(text('bench/lib/built.ts')).toContain('API_NODE_FLAGS');
  });
});

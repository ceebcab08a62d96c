import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureProductionBuild } from '../../scripts/lib/cluster.js';
import { API_NODE_FLAGS, WORKER_NODE_FLAGS } from '../../scripts/lib/node-flags.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The API and the worker run as production runs them: `node dist/…` after `npm run build`, not
 * the sources under tsx (whose loader and transpile cache add to the resident set and to the start).
 * BENCH_FROM_SOURCE=1 runs the sources instead (while editing, without a build per run).
 */
export function runsBuild(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.BENCH_FROM_SOURCE !== '1';
}

/**
 * `npm run build` when dist/ is missing or older than the sources: the same check and stamp as
 * `npm run cluster` (scripts/lib/cluster.ts `ensureProductionBuild`), so neither builds twice.
 */
export function ensureBuilt(log: (m: string) => void): void {
  if (runsBuild()) ensureProductionBuild(log);
}

/**
 * How to start a source entry of ours (`…/api/main.ts`): under `node` from its compiled file in
 * `dist/` with the tracing preload and the heap limits (scripts/lib/node-flags.ts), as `npm start` / `npm run worker` do; under tsx otherwise
 * (bench code, or BENCH_FROM_SOURCE=1).
 */
export function entryArgs(entry: string): string[] {
  const path = relative(ROOT, entry);
  const compiled = `${ROOT}dist/${path.replace(/\.ts$/, '.js')}`;
  if (runsBuild() && !path.startsWith('bench') && existsSync(compiled)) {
    const flags = path.startsWith('activities') ? WORKER_NODE_FLAGS : path.startsWith('api') ? API_NODE_FLAGS : [];
    return [...flags, '--import', `${ROOT}dist/lib/tracing-preload.js`, compiled];
  }
  return ['--import', 'tsx', entry];
}

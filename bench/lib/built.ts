import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { markProductionBuilt } from '../../scripts/lib/cluster.js';
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

let built = false;

/** `npm run build` once per bench run (the compiled API and worker, and the workflow bundle). */
export function ensureBuilt(log: (m: string) => void): void {
  if (built || !runsBuild()) return;
  log('building dist/ (npm run build) so the API and the worker run as in production…');
  const res = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (res.status !== 0) throw new Error(`npm run build failed (exit ${res.status ?? res.signal})`);
  // So that `npm run cluster` (scripts/lib/cluster.ts ensureProductionBuild) takes this build instead of building again.
  markProductionBuilt();
  built = true;
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

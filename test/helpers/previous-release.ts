import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The release before this tree, checked out beside it: `test/cluster/upgrade.test.ts` runs its
 * cluster and upgrades it, `test/db/previous-release-schema.test.ts` runs its database tests on
 * this tree's schema (docs/production.md "Upgrades").
 */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The commit of the release before this tree: the first line of ops/previous-release that is not a comment. */
export function previousRelease(): string {
  const line = readFileSync(join(REPO_ROOT, 'ops', 'previous-release'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('#'));
  if (!line || !/^[0-9a-f]{40}$/.test(line)) throw new Error('ops/previous-release names no commit (40 hex digits)');
  return line;
}

function git(args: string[], cwd = REPO_ROOT): string {
  const res = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout;
}

/**
 * A worktree of the previous release with its own node_modules: ours when the lockfiles are the
 * same, otherwise installed there (`npm ci`, from the registry). A checkout without the commit
 * (a shallow clone) fails here, loudly: the upgrade cannot be proved without the release before.
 */
export function checkOutPreviousRelease(commit: string, log: (m: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'platform-previous-release-'));
  git(['worktree', 'add', '--detach', dir, commit]);
  const sameLock = existsSync(join(dir, 'package-lock.json')) && readFileSync(join(dir, 'package-lock.json'), 'utf8') === readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8');
  if (sameLock) {
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  } else {
    log('the previous release has other dependencies: npm ci there');
    const res = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
    if (res.status !== 0) throw new Error('npm ci of the previous release failed');
  }
  return dir;
}

/** Removes a worktree made by checkOutPreviousRelease (and what git keeps of it). */
export function removePreviousRelease(dir: string): void {
  spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: REPO_ROOT });
  rmSync(dir, { recursive: true, force: true });
  spawnSync('git', ['worktree', 'prune'], { cwd: REPO_ROOT });
}

/** A module of the previous release (its own code, not ours), typed as ours: the two differ by one release. */
export async function previous<T>(dir: string, path: string): Promise<T> {
  return (await import(pathToFileURL(join(dir, path)).href)) as T;
}

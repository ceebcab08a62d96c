import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

/** Used when the machine's Go is too new for a tool's dependencies; fetched from the module proxy. */
const FALLBACK_TOOLCHAIN = 'go1.25.5';

export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && executable(candidate)) return candidate;
  }
  return null;
}

export function goBinary(): string | null {
  return onPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null);
}

/** Per-user cache outside the checkout (`~/.cache/hosting-platform/<name>`), so every clone on this machine reuses one build. */
export function userCacheDir(name: string): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'hosting-platform', name);
}

/**
 * `go install` of `packages` (each `module/path@version`) into `targetDir`, first with the
 * machine's Go, then with the fallback toolchain; true when every `binaries` name is there.
 */
export function goInstall(options: { label: string; packages: string[]; targetDir: string; binaries: string[]; log: (m: string) => void }): boolean {
  mkdirSync(options.targetDir, { recursive: true });
  const built = () => options.binaries.every((name) => executable(join(options.targetDir, name)));
  return withToolchains(options.label, options.log, (go, env) => {
    const res = spawnSync(go, ['install', ...options.packages], { env: { ...env, GOBIN: options.targetDir, GOFLAGS: '-mod=mod' }, stdio: ['ignore', 'inherit', 'inherit'] });
    return res.status === 0 && built();
  });
}

/** Runs `attempt` with the machine's Go, then with the fallback toolchain, until one succeeds. */
function withToolchains(label: string, log: (m: string) => void, attempt: (go: string, env: NodeJS.ProcessEnv) => boolean): boolean {
  const go = goBinary();
  if (!go) return false;
  for (const toolchain of [undefined, FALLBACK_TOOLCHAIN]) {
    log(`building ${label} with Go${toolchain ? ` (${toolchain})` : ''}; this takes a few minutes once…`);
    if (attempt(go, { ...process.env, ...(toolchain ? { GOTOOLCHAIN: toolchain } : {}) })) return true;
  }
  return false;
}

/**
 * For a module whose go.mod has replace or exclude directives (`go install pkg@version` refuses
 * those): download it into the module cache and build `pkg` inside it, with its own go.mod.
 */
export function goBuildInModule(options: { label: string; module: string; version: string; pkg: string; output: string; log: (m: string) => void }): boolean {
  mkdirSync(dirname(options.output), { recursive: true });
  return withToolchains(options.label, options.log, (go, env) => {
    const download = spawnSync(go, ['mod', 'download', '-json', `${options.module}@${options.version}`], { env, encoding: 'utf8' });
    if (download.status !== 0) return false;
    const dir = (JSON.parse(download.stdout) as { Dir?: string }).Dir;
    if (!dir) return false;
    const res = spawnSync(go, ['build', '-o', options.output, options.pkg], { cwd: dir, env, stdio: ['ignore', 'inherit', 'inherit'] });
    return res.status === 0 && executable(options.output);
  });
}

/**
 * `go build` of a module of ours (`dir` holds its go.mod and a complete go.sum, so the build is
 * the same on every machine: its modules come from the module proxy, checked against go.sum).
 */
export function goBuildOwnModule(options: { label: string; dir: string; output: string; log: (m: string) => void }): boolean {
  mkdirSync(dirname(options.output), { recursive: true });
  return withToolchains(options.label, options.log, (go, env) => {
    const res = spawnSync(go, ['build', '-mod=readonly', '-o', options.output, '.'], { cwd: options.dir, env, stdio: ['ignore', 'inherit', 'inherit'] });
    return res.status === 0 && executable(options.output);
  });
}

/** `go env NAME` of the machine's Go (e.g. GOMODCACHE), or null without Go. */
export function goEnv(name: string): string | null {
  const go = goBinary();
  if (!go) return null;
  const res = spawnSync(go, ['env', name], { encoding: 'utf8' });
  return res.status === 0 ? res.stdout.trim() || null : null;
}

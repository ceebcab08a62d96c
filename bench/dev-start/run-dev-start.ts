import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ROOT_RUNTIME_DIR } from '../../scripts/lib/postgres-as-root.js';
import { freePort } from '../../scripts/lib/ports.js';

/** Target (issue #19): `npm run dev` on a machine where it ran before. Reported, never failing the run. */
const MAX_WARM_START_SECONDS = 20;
/** The line scripts/dev.ts prints once the API answers, with its own seconds since its process started. */
const UP_LINE = /platform is up(?: \((\d+(?:\.\d+)?) s\))?/;
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every port scripts/dev.ts listens on, set through its environment. */
export const PORT_VARIABLES = [
  'PORT',
  'PG_PORT',
  'TEMPORAL_PORT',
  'TEMPORAL_UI_PORT',
  'SANDBOX_QRPAY_PORT',
  'SANDBOX_CERTIFY_PORT',
  'SANDBOX_SMS_PORT',
  'SANDBOX_MAIL_PORT',
  'SANDBOX_SMTP_PORT',
  'SANDBOX_UPSTREAM_PORT',
  'SANDBOX_UPSTREAM2_PORT',
] as const;
/** What the bench's own environment may carry that would point the dev run at other servers or ports. */
export const NOT_INHERITED = ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_UI_URL', 'METRICS_PORT', 'WORKER_METRICS_PORT', 'TEMPORAL_METRICS_BIND_ADDRESS'];

export type DevStart = {
  /** Spawn → the "platform is up" line, measured by the bench. */
  seconds: number;
  /** What the line itself says (seconds since the dev process started), null if it says nothing. */
  reportedSeconds: number | null;
};

export type DevStartResult = {
  /** The first start: creates the database cluster, migrates and seeds the demo data. */
  firstStart: DevStart;
  /** The second start on the same DATA_DIR: "a machine where it ran before". */
  warmStart: DevStart;
  goal: { label: string; pass: boolean };
};

/** A launcher (`scripts/dev.ts`, `scripts/cluster.ts`) running as the leader of its own process group. */
export type LauncherRun = { name: string; child: ChildProcess; tail: string[]; exited: Promise<void> };

export async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/**
 * A fresh temporary DATA_DIR and the environment of `npm run dev` on it: every port in
 * PORT_VARIABLES free, nothing of NOT_INHERITED; `extra` over it.
 */
export async function freshDevEnvironment(extra: NodeJS.ProcessEnv = {}): Promise<{ dataDir: string; env: NodeJS.ProcessEnv }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-dev-start-'));
  // As root, PostgreSQL runs as its own user, which must be able to enter the folder (else its
  // data is placed under /var/lib/hosting-platform, which removeDataDir also handles).
  chmodSync(dataDir, 0o755);
  const ports = await distinctFreePorts(PORT_VARIABLES.length);
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ...Object.fromEntries(PORT_VARIABLES.map((name, i) => [name, String(ports[i])])), ...extra };
  for (const name of NOT_INHERITED) delete env[name];
  return { dataDir, env };
}

/** Starts `node --import tsx <script>` (scripts/dev.ts by default) as the leader of its own process group (so that all it starts can be found again). */
export function spawnLauncher(env: NodeJS.ProcessEnv, script = 'scripts/dev.ts', name = 'npm run dev'): LauncherRun {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  // Its output (demo accounts, the admin password, the children's logs) is kept only to explain a failure.
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) tail.push(line);
    tail.splice(0, Math.max(0, tail.length - 40));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return { name, child, tail, exited };
}

/**
 * Resolves once the launcher prints a line matching `line` (its "up" line), with the seconds since
 * `spawnedAt` and the match; rejects with its last lines when it exits first, times out or is interrupted.
 */
export function waitForLine(run: LauncherRun, line: RegExp, spawnedAt: number, timeoutMs: number, signal: AbortSignal): Promise<{ seconds: number; match: RegExpExecArray }> {
  return new Promise((resolveUp, reject) => {
    let seen = '';
    const fail = (why: string) => {
      cleanup();
      reject(new Error(`${run.name} (bench): ${why}\n${run.tail.map((l) => `  | ${l}`).join('\n')}`));
    };
    const onData = (chunk: Buffer) => {
      const now = performance.now();
      seen = (seen + chunk.toString()).slice(-4_000);
      const match = line.exec(seen);
      if (!match) return;
      cleanup();
      resolveUp({ seconds: (now - spawnedAt) / 1000, match });
    };
    const onExit = () => fail(`exited (${run.child.exitCode ?? run.child.signalCode}) before it was up`);
    const onAbort = () => fail('interrupted');
    const timer = setTimeout(() => fail(`not up within ${timeoutMs / 1000} s`), timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      run.child.stdout?.off('data', onData);
      run.child.off('exit', onExit);
      signal.removeEventListener('abort', onAbort);
    };
    run.child.stdout?.on('data', onData);
    run.child.once('exit', onExit);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
  });
}

/** Resolves with the start's figures once the "platform is up" line appears. */
export async function waitUntilUp(run: LauncherRun, spawnedAt: number, timeoutMs: number, signal: AbortSignal): Promise<DevStart> {
  const { seconds, match } = await waitForLine(run, UP_LINE, spawnedAt, timeoutMs, signal);
  return { seconds, reportedSeconds: match[1] === undefined ? null : Number(match[1]) };
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
}

/**
 * Ctrl-C as a developer would press it (SIGINT to scripts/dev.ts or scripts/cluster.ts, which
 * stop their children in order, PostgreSQL last), then waits for the process group to be gone;
 * what is left after the grace time (only if the shutdown hung) is killed, by the group's id.
 */
export async function stopLauncher(run: LauncherRun, graceMs = 90_000): Promise<void> {
  const pid = run.child.pid;
  if (pid === undefined) return;
  if (run.child.exitCode === null && run.child.signalCode === null) {
    run.child.kill('SIGINT');
    const timer = new Promise<'late'>((done) => setTimeout(() => done('late'), graceMs).unref());
    if ((await Promise.race([run.exited.then(() => 'exited' as const), timer])) === 'late') killGroup(pid);
  }
  for (let i = 0; i < 100 && groupAlive(pid); i++) await new Promise((done) => setTimeout(done, 100));
  if (groupAlive(pid)) {
    killGroup(pid);
    await new Promise((done) => setTimeout(done, 500));
  }
}

/**
 * Removes the run's DATA_DIR. As root the PostgreSQL cluster may live under
 * /var/lib/hosting-platform/data with a symlink at <DATA_DIR>/postgres (scripts/lib/postgres-as-root.ts):
 * that folder goes too (only there: a symlink elsewhere is only unlinked).
 */
export function removeDataDir(dataDir: string): void {
  const link = join(dataDir, 'postgres');
  if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) {
    let target: string | null = null;
    try {
      target = realpathSync(link);
    } catch {
      // dangling: nothing to remove there
    }
    if (target && target.startsWith(`${resolve(DEFAULT_ROOT_RUNTIME_DIR, 'data')}${sep}`)) rmSync(target, { recursive: true, force: true });
  }
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * `npm run dev` start-up: scripts/dev.ts with a fresh DATA_DIR and every port free, once to the
 * end of its first start (cluster, migrations, demo data), stopped with SIGINT, then started
 * again on the same DATA_DIR; the wall seconds from spawn to the "platform is up" line, both
 * times. The temporary DATA_DIR (and, as root, the cluster it points to) is removed afterwards.
 */
export async function runDevStartBench(ctx: { signal: AbortSignal; log: (m: string) => void }): Promise<DevStartResult> {
  const { dataDir, env } = await freshDevEnvironment();
  // The run under way, stopped by the finally block if a start fails or is interrupted.
  const current: { run: LauncherRun | null } = { run: null };
  try {
    const start = async (label: string, timeoutMs: number): Promise<DevStart> => {
      ctx.log(`dev start: ${label} (DATA_DIR ${dataDir}, API on ${env.PORT})…`);
      const spawnedAt = performance.now();
      const run = spawnLauncher(env);
      current.run = run;
      const figures = await waitUntilUp(run, spawnedAt, timeoutMs, ctx.signal);
      ctx.log(`  up after ${figures.seconds.toFixed(1)} s; stopping it with SIGINT…`);
      await stopLauncher(run);
      current.run = null;
      return figures;
    };
    const firstStart = await start('first start, fresh DATA_DIR', 600_000);
    ctx.signal.throwIfAborted();
    const warmStart = await start('warm start, the same DATA_DIR', 300_000);
    return {
      firstStart,
      warmStart,
      goal: { label: `warm start < ${MAX_WARM_START_SECONDS} s`, pass: warmStart.seconds < MAX_WARM_START_SECONDS },
    };
  } finally {
    if (current.run) await stopLauncher(current.run);
    removeDataDir(dataDir);
  }
}

export function formatDevStartTable(r: DevStartResult): string {
  const line = (name: string, s: DevStart) =>
    `  ${name.padEnd(38)} ${s.seconds.toFixed(1).padStart(6)} s  (the line itself: ${s.reportedSeconds === null ? 'n/a' : `${s.reportedSeconds.toFixed(1)} s`})`;
  return [
    '启动耗时 / npm run dev start-up: spawn → "platform is up"',
    line('first start (new DATA_DIR, demo data)', r.firstStart),
    line('warm start (the same DATA_DIR again)', r.warmStart),
    `  目标 / target: ${r.goal.label} → ${r.goal.pass ? 'PASS' : 'MISS'}`,
  ].join('\n');
}

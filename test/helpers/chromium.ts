import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

/**
 * The one place the real-browser tests get their browser: Debian's Chromium at /usr/bin/chromium.
 * Where it is missing and the run is root with apt-get at hand, it is installed once
 * (`apt-get install -y --no-install-recommends chromium`, after `apt-get update` when the package
 * lists do not know it), as the test setup prepares PostgreSQL for root; otherwise, or when the
 * install fails, the caller skips with one line saying why. Called at the top of a browser test
 * file (top-level await), so a run that selects no browser test never pays for it.
 */
export const CHROMIUM = '/usr/bin/chromium';

const run = promisify(execFile);
const APT_ENV = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
// Waits for another apt-get (a parallel test file, another user of the machine) instead of failing on its lock.
const APT_LOCK = ['-o', 'DPkg::Lock::Timeout=600'];
const INSTALL_TIMEOUT_MS = 15 * 60_000;

export type ChromiumAvailability = { path: string; skipReason: null } | { path: null; skipReason: string };

let pending: Promise<ChromiumAvailability> | undefined;

async function knowsChromium(): Promise<boolean> {
  try {
    const { stdout } = await run('apt-cache', ['policy', 'chromium'], { env: APT_ENV, timeout: 60_000 });
    return /Candidate:\s*(?!\(none\))\S+/.test(stdout);
  } catch {
    return false;
  }
}

async function install(): Promise<ChromiumAvailability> {
  if (existsSync(CHROMIUM)) return { path: CHROMIUM, skipReason: null };
  const missing = `${CHROMIUM} not found`;
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    return { path: null, skipReason: `${missing}; not root, so not installed (run: apt-get install -y --no-install-recommends chromium)` };
  }
  if (!existsSync('/usr/bin/apt-get')) return { path: null, skipReason: `${missing} and no apt-get on this machine (install Chromium at ${CHROMIUM})` };
  console.warn(`[chromium] ${missing}: installing Debian's chromium once (apt-get install -y --no-install-recommends chromium)`);
  try {
    if (!(await knowsChromium())) await run('apt-get', [...APT_LOCK, 'update', '-qq'], { env: APT_ENV, timeout: INSTALL_TIMEOUT_MS });
    await run('apt-get', [...APT_LOCK, 'install', '-y', '-qq', '--no-install-recommends', 'chromium'], { env: APT_ENV, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const detail = (err as { stderr?: string }).stderr?.trim().split('\n').at(-1) ?? (err as Error).message;
    return { path: null, skipReason: `${missing} and apt-get could not install chromium (${detail.slice(0, 200)})` };
  }
  return existsSync(CHROMIUM) ? { path: CHROMIUM, skipReason: null } : { path: null, skipReason: `${missing} even after apt-get install chromium` };
}

/** Chromium's path, installing it first where this run may; or why the browser tests are skipped (printed once, one line). */
export function ensureChromium(): Promise<ChromiumAvailability> {
  pending ??= install().then((result) => {
    if (result.skipReason) console.warn(`[chromium] browser tests skipped: ${result.skipReason}`);
    return result;
  });
  return pending;
}

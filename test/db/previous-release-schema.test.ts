import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkOutPreviousRelease, previousRelease, removePreviousRelease } from '../helpers/previous-release.js';

/**
 * Expand, then contract, proved by the old code itself (issue #37 part 4, docs/production.md
 * "Upgrades"): the previous release's own database tests run, with its own vitest, in a worktree
 * of it, on a template database migrated by this tree's migrations
 * (`test/setup/previous-release.config.ts`), against this run's PostgreSQL and Temporal. They
 * must all pass: what the old APIs and workers read and write still works while the new
 * migrations are in and the old processes still serve.
 *
 * The subset, by rule (not by hand): every old test file under SUBSET_FOLDERS that starts a
 * test platform (`start…Platform(`: its own database cloned from the template, so it exercises
 * the old code's SQL on the new schema), except a file that asserts the schema's own shape (it
 * reads the catalogue: `pg_constraint`, `information_schema`, `schema_migrations`), which an
 * expand legitimately changes (a vocabulary CHECK that allows one value more).
 */
const SUBSET_FOLDERS = ['test/db', 'test/domain'];
const READS_DATABASE = /\bstart\w*Platform\(/;
const ASSERTS_SCHEMA_SHAPE = /\b(pg_constraint|pg_attribute|information_schema|schema_migrations)\b/;
const CONFIG = fileURLToPath(new URL('../setup/previous-release.config.ts', import.meta.url));
const log = (m: string) => console.log(`[previous release on this schema] ${m}`);

/** The old release's test files of the subset (paths relative to its root), in a stable order. */
function databaseTestFiles(root: string): string[] {
  return SUBSET_FOLDERS.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => join(folder, f)),
  )
    .filter((f) => {
      const text = readFileSync(join(root, f), 'utf8');
      return READS_DATABASE.test(text) && !ASSERTS_SCHEMA_SHAPE.test(text);
    })
    .sort();
}

/** What vitest's JSON reporter writes (the part read here). */
type JsonReport = {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: Array<{
    name: string;
    status: string;
    message: string;
    assertionResults: Array<{ fullName: string; status: string; failureMessages: string[] }>;
  }>;
};

/** The old release's own vitest on `files`, in its worktree: the exit code and everything it printed. */
function runOldVitest(root: string, files: string[], jsonPath: string): Promise<{ code: number | null; output: string }> {
  // The nested run is a run of its own: none of this worker's vitest variables.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')));
  const child = spawn(
    process.execPath,
    [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', root, '--config', CONFIG, '--reporter=dot', '--reporter=json', `--outputFile.json=${jsonPath}`, ...files],
    {
      cwd: root,
      env: { ...env, DATABASE_URL: inject('adminDatabaseUrl'), TEMPORAL_ADDRESS: inject('temporalAddress') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

let root = '';
let scratch = '';

beforeAll(() => {
  const commit = previousRelease();
  root = checkOutPreviousRelease(commit, log);
  scratch = mkdtempSync(join(tmpdir(), 'platform-previous-schema-'));
  log(`previous release ${commit.slice(0, 12)} in ${root}`);
}, 600_000);

afterAll(() => {
  if (root) removePreviousRelease(root);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the previous release on this tree’s schema', () => {
  it('passes its own database tests on a database migrated by this tree', async () => {
    const files = databaseTestFiles(root);
    log(`${files.length} old test files: ${files.join(' ')}`);
    expect(files.length).toBeGreaterThan(0);
    const jsonPath = join(scratch, 'report.json');
    const { code, output } = await runOldVitest(root, files, jsonPath);
    let report: JsonReport;
    try {
      report = JSON.parse(readFileSync(jsonPath, 'utf8')) as JsonReport;
    } catch {
      throw new Error(`the old release's vitest wrote no report (exit ${code}):\n${output.slice(-4000)}`);
    }
    log(
      `${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests + report.numTodoTests} skipped of ${report.numTotalTests} tests in ${report.testResults.length} files (exit ${code})`,
    );
    // Each failure with its file and first lines (the first ten), so a broken expand names what the old code read.
    const failures = report.testResults.flatMap((file) => [
      ...(file.status === 'failed' && file.message ? [`${file.name.slice(root.length)}: ${file.message.slice(0, 400)}`] : []),
      ...file.assertionResults
        .filter((a) => a.status === 'failed')
        .map((a) => `${file.name.slice(root.length)} › ${a.fullName}: ${(a.failureMessages[0] ?? '').slice(0, 400)}`),
    ]);
    expect(failures.length > 10 ? [...failures.slice(0, 10), `… and ${failures.length - 10} more`] : failures).toEqual([]);
    expect(code, output.slice(-4000)).toBe(0);
    expect(report.testResults.length).toBe(files.length);
    expect(report.numPassedTests).toBeGreaterThan(0);
  }, 900_000);
});

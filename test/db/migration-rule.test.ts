import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { migrations as MIGRATIONS } from '../../db/migrations/index.js';

/**
 * The expand/contract rule (docs/CONVENTIONS.md "Migrations: expand, then contract"): every
 * migration is safe for the release before it to keep running against, since the migrations run
 * before the new code rolls out. Read from each migration's source (its `up`, comments left out):
 * - no DROP or RENAME of a table or column, unless the migration is the contract step of an
 *   earlier expand (`contracts: '<that migration>'`);
 * - no NOT NULL column added (or SET NOT NULL) without a default on an existing table;
 * - an index on an existing table built CONCURRENTLY.
 * A table the same migration creates is new: nothing old reads it.
 */
const DIR = fileURLToPath(new URL('../../db/migrations/', import.meta.url));

/**
 * Migrations that landed before the rule (written 2026-11-28) and break it: they ran on every
 * database already, and a landed migration is never edited. Frozen: the test refuses a name
 * after LAST_BEFORE_RULE, and an entry that no longer breaks the rule.
 */
const GRANDFATHERED: Record<string, string> = {
  '0005-task-runs': 'indexes on task_runs and login_logs built in place',
  '0006-catalogue-admin': 'indexes on catalogue_audit_logs and products built in place',
  '0008-provisioning': 'indexes on services built in place',
  '0009-service-orders': 'indexes on invoices and service_events built in place',
  '0010-lifecycle': 'an index on services built in place',
  '0012-login-throttle': 'indexes on login_logs built in place',
  '0017-service-upgrades': 'an index on invoices built in place',
  '0018-identity': 'an index on users built in place',
  '0021-operations': 'drops catalogue_audit_logs (folded into the admin audit) in the same release',
  '0023-audit-chain': 'SET NOT NULL on the chain columns of admin_audit_logs after filling them; an index built in place',
  '0026-service-orders-name': 'renames service_upstream_orders to service_orders in one step',
  '0034-log-partitions': 'swaps two log tables for partitioned ones and drops the old; indexes built in place',
};
const LAST_BEFORE_RULE = '0035-task-indexes';

/** The source without the `down` method (what a rollback does is not what a release runs). */
function withoutDown(source: string): string {
  const start = source.search(/async\s+down\s*\(/);
  if (start < 0) return source;
  let i = source.indexOf('{', source.indexOf(')', start));
  for (let depth = 0; i < source.length; i++) {
    if (source[i] === '{') depth++;
    else if (source[i] === '}' && --depth === 0) break;
  }
  return source.slice(0, start) + source.slice(i + 1);
}

function migrationViolations(source: string): string[] {
  const text = withoutDown(source)
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/^\s*\/\/.*$/gm, ' ')
    .replace(/--[^\n]*/g, ' ');
  const created = new Set([...text.matchAll(/CREATE\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w.]+)/gi)].map((m) => (m[1] ?? '').toLowerCase()));
  const isNew = (table: string) => created.has(table.toLowerCase());
  const found: string[] = [];
  for (const raw of text.split(';')) {
    const statement = raw.replace(/\s+/g, ' ');
    for (const m of statement.matchAll(/\bDROP TABLE (?:IF EXISTS )?([\w.${}]+)/gi)) if (!isNew(m[1] ?? '')) found.push(`drop table ${m[1]}`);
    const alter = /\bALTER TABLE (?:IF EXISTS )?(?:ONLY )?([\w.${}]+) (.*)$/i.exec(statement);
    if (alter && !isNew(alter[1] ?? '')) {
      const [, table, rest = ''] = alter;
      if (/\bRENAME (?!CONSTRAINT\b)/i.test(rest)) found.push(`rename in ${table}`);
      for (const part of rest.split(/,(?![^()]*\))/)) {
        const clause = part.trim();
        if (/^DROP (?!CONSTRAINT\b|DEFAULT\b|NOT NULL\b|IDENTITY\b|EXPRESSION\b)/i.test(clause) || /\bDROP COLUMN\b/i.test(clause)) found.push(`drop column in ${table}: ${clause.slice(0, 60)}`);
        if (/^ADD (?!CONSTRAINT\b|PRIMARY\b|UNIQUE\b|CHECK\b|FOREIGN\b|EXCLUDE\b)/i.test(clause) && /\bNOT NULL\b/i.test(clause) && !/\bDEFAULT\b|\bGENERATED\b/i.test(clause)) {
          found.push(`not null without default in ${table}: ${clause.slice(0, 60)}`);
        }
        if (/\bSET NOT NULL\b/i.test(clause)) found.push(`set not null in ${table}: ${clause.slice(0, 60)}`);
      }
    }
    for (const m of statement.matchAll(/\bCREATE (?:UNIQUE )?INDEX (CONCURRENTLY )?(?:IF NOT EXISTS )?(?:[\w${}]+ )?ON (?:ONLY )?([\w.${}]+)/gi)) {
      if (!m[1] && !isNew(m[2] ?? '')) found.push(`index without CONCURRENTLY on ${m[2]}`);
    }
  }
  return found;
}

function sourceOf(name: string): string {
  return readFileSync(join(DIR, `${name}.ts`), 'utf8');
}

describe('migrations expand, then contract one release later', () => {
  it('finds each kind of unsafe change, and none on a table the migration creates', () => {
    const wrap = (sql: string) => `export const m = { name: 'x', async up() { await q(\`${sql}\`); }, async down() { await q('DROP TABLE t'); } };`;
    expect(migrationViolations(wrap('ALTER TABLE invoices DROP COLUMN note'))).toHaveLength(1);
    expect(migrationViolations(wrap('ALTER TABLE invoices DROP note'))).toHaveLength(1);
    expect(migrationViolations(wrap('DROP TABLE invoices'))).toHaveLength(1);
    expect(migrationViolations(wrap('ALTER TABLE invoices RENAME COLUMN note TO remark'))).toHaveLength(1);
    expect(migrationViolations(wrap('ALTER TABLE invoices RENAME TO bills'))).toHaveLength(1);
    expect(migrationViolations(wrap('ALTER TABLE invoices ADD COLUMN kind VARCHAR(8) NOT NULL'))).toHaveLength(1);
    expect(migrationViolations(wrap('ALTER TABLE invoices ALTER COLUMN kind SET NOT NULL'))).toHaveLength(1);
    expect(migrationViolations(wrap('CREATE INDEX invoices_kind_idx ON invoices (kind)'))).toHaveLength(1);
    expect(migrationViolations(wrap('CREATE UNIQUE INDEX IF NOT EXISTS x ON invoices (kind)'))).toHaveLength(1);
    // Safe: a default, CONCURRENTLY, a new table, a constraint, the down step.
    expect(
      migrationViolations(
        wrap(`ALTER TABLE invoices ADD COLUMN kind VARCHAR(8) NOT NULL DEFAULT 'a', ADD CONSTRAINT c CHECK (kind IN ('a', 'b')), DROP CONSTRAINT old, ALTER COLUMN x DROP NOT NULL;
          CREATE INDEX CONCURRENTLY IF NOT EXISTS invoices_kind_idx ON invoices (kind);
          CREATE TABLE t (id INT NOT NULL); CREATE INDEX t_idx ON t (id); ALTER TABLE t ADD COLUMN y INT NOT NULL; ALTER TABLE t DROP COLUMN y`),
      ),
    ).toEqual([]);
  });

  it('holds for every migration not grandfathered; a contract step names an earlier migration', () => {
    const names = MIGRATIONS.map((m) => m.name);
    expect(readdirSync(DIR).filter((f) => /^\d{4}-.*\.ts$/.test(f)).map((f) => f.replace(/\.ts$/, ''))).toEqual(names);
    const broken: Record<string, string[]> = {};
    for (const migration of MIGRATIONS) {
      const found = migrationViolations(sourceOf(migration.name)).filter((v) => !(migration.contracts && /^(drop|rename)/.test(v)));
      if (migration.contracts) expect(names.indexOf(migration.contracts), `${migration.name} contracts ${migration.contracts}`).toBeGreaterThanOrEqual(0);
      if (migration.contracts) expect(names.indexOf(migration.contracts)).toBeLessThan(names.indexOf(migration.name));
      if (found.length && !GRANDFATHERED[migration.name]) broken[migration.name] = found;
    }
    expect(broken).toEqual({});
  });

  it('keeps the grandfather list to migrations from before the rule that do break it', () => {
    for (const name of Object.keys(GRANDFATHERED)) {
      expect(name <= LAST_BEFORE_RULE, `${name} is newer than the rule`).toBe(true);
      expect(migrationViolations(sourceOf(name)), `${name} breaks nothing: take it off the list`).not.toEqual([]);
    }
  });
});

import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureDatabase, quoteIdent, withDatabase, withPgClient } from '../../scripts/lib/postgres.js';
import { heartbeatManualWorkflowId } from '../../workflows/heartbeat/contract.js';
import { invoicePaymentWorkflowId } from '../../workflows/invoice-payment/contract.js';
import { provisionWorkflowId } from '../../workflows/provisioning/contract.js';
import { refundWorkflowId } from '../../workflows/refund/contract.js';
import { renewWorkflowId } from '../../workflows/renewal/contract.js';
import { taskWorkflowId } from '../../workflows/task-run/contract.js';
import { trafficWorkflowId } from '../../workflows/traffic-package/contract.js';
import { upgradeWorkflowId } from '../../workflows/upgrade/contract.js';
import { verificationWorkflowId } from '../../workflows/verification/contract.js';
import { UPSTREAM_WORK_KINDS } from '../../domain/upstream-work/kinds.js';

/** The rows of the table under "## Names" in docs/glossary.md, by column header. */
function glossaryNames(): Array<Record<string, string>> {
  const text = readFileSync(new URL('../../docs/glossary.md', import.meta.url), 'utf8');
  const section = text.split(/^## /m).find((s) => s.startsWith('Names'));
  if (!section) throw new Error('docs/glossary.md has no "## Names" section');
  const lines = section.split('\n').filter((l) => l.trim().startsWith('|'));
  const cells = (line: string) => line.trim().slice(1, -1).split('|').map((c) => c.trim());
  const [header, , ...rows] = lines;
  const columns = cells(header ?? '');
  return rows.map((row) => Object.fromEntries(cells(row).map((c, i) => [columns[i] ?? String(i), c])));
}

/** The backticked names of a cell (`a`, `b`); none for "—". */
const named = (cell: string | undefined) => [...(cell ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** A pattern such as `renew:<invoice_no>` as a regular expression: each `<placeholder>` is one or more characters. */
function patternRegExp(pattern: string): RegExp {
  const escape = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp('^' + pattern.split(/<[^>]+>/).map(escape).join('.+') + '$');
}

/** What each workflow-id builder makes, for sample business ids. */
const BUILT_IDS: Record<string, string> = {
  provisionWorkflowId: provisionWorkflowId(7),
  renewWorkflowId: renewWorkflowId('INV202611260001'),
  trafficWorkflowId: trafficWorkflowId('INV202611260002'),
  upgradeWorkflowId: upgradeWorkflowId('INV202611260003'),
  invoicePaymentWorkflowId: invoicePaymentWorkflowId('INV202611260004'),
  refundWorkflowId: refundWorkflowId('RF202611260001'),
  verificationWorkflowId: verificationWorkflowId('VA202611260001'),
  taskWorkflowId: taskWorkflowId('', 'logs.retention_cleanup'),
  heartbeatManualWorkflowId: heartbeatManualWorkflowId(new Date('2026-11-26T08:00:00Z')),
};

const rows = glossaryNames();
const tables = rows.flatMap((r) => named(r['table']));
const patterns = rows.flatMap((r) => named(r['workflow id']));

describe('the glossary (docs/glossary.md)', () => {
  const adminUrl = inject('adminDatabaseUrl');
  const database = `glossary_${randomBytes(4).toString('hex')}`;
  let schemaTables: string[] = [];
  beforeAll(async () => {
    await ensureDatabase(adminUrl, database, inject('templateDatabase'));
    schemaTables = await withPgClient(withDatabase(adminUrl, database), async (c) =>
      (await c.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`)).rows.map((r) => r.name),
    );
  });
  afterAll(async () => {
    await withPgClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)}`)).catch(() => {});
  });

  it('names tables and workflow ids in a machine-readable table', () => {
    expect(tables.length).toBeGreaterThan(5);
    expect(patterns.length).toBeGreaterThan(5);
  });

  it('names only tables of the migrated schema', () => {
    expect(tables.filter((t) => !schemaTables.includes(t))).toEqual([]);
    expect(tables).toContain('service_orders');
    expect(schemaTables).not.toContain('service_upstream_orders');
  });

  it('names workflow ids as the id builders make them, and every builder’s ids', () => {
    for (const pattern of patterns) {
      expect(Object.values(BUILT_IDS).some((id) => patternRegExp(pattern).test(id)), `no builder makes ${pattern}`).toBe(true);
    }
    for (const [builder, id] of Object.entries(BUILT_IDS)) {
      expect(patterns.some((p) => patternRegExp(p).test(id)), `the glossary names no pattern of ${builder} (${id})`).toBe(true);
    }
    expect(patternRegExp('provision:<service_id>').test(provisionWorkflowId(7))).toBe(true);
  });

  it('agrees with the upstream-work kernel’s kinds', () => {
    for (const kind of Object.values(UPSTREAM_WORK_KINDS)) {
      expect(patterns).toContain(kind.workflow.pattern);
      expect(kind.workflow.id({ serviceId: 7, invoiceNo: 'INV202611260001' })).toMatch(patternRegExp(kind.workflow.pattern));
    }
  });
});

/** The phrases of the "not" column under "## Not these words" (backticked), each with the word to say instead. */
function wordsNotToSay(): Array<{ say: string; not: string }> {
  const text = readFileSync(new URL('../../docs/glossary.md', import.meta.url), 'utf8');
  const section = text.split(/^## /m).find((s) => s.startsWith('Not these words'));
  if (!section) throw new Error('docs/glossary.md has no "## Not these words" section');
  const rows = section.split('\n').filter((l) => l.trim().startsWith('|')).slice(2);
  return rows.flatMap((row) => {
    const [say, not] = row.trim().slice(1, -1).split('|').map((c) => c.trim());
    return named(not).map((phrase) => ({ say: say ?? '', not: phrase }));
  });
}

const ROOT = new URL('../../', import.meta.url).pathname;
/** Where the words are checked: the code (migrations aside: they keep the names they ran with), the README and docs. */
const CODE_FOLDERS = ['api', 'domain', 'workflows', 'activities', 'lib', 'db', 'plugins', 'scripts', 'sandbox'];

function textFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (path === 'db/migrations' || name === 'node_modules') return [];
    if (statSync(join(ROOT, path)).isDirectory()) return textFiles(path);
    return /\.(ts|md)$/.test(name) ? [path] : [];
  });
}

describe('the words of the glossary', () => {
  const phrases = wordsNotToSay();
  const files = [...CODE_FOLDERS.flatMap(textFiles), 'README.md', ...textFiles('docs').filter((f) => f !== 'docs/glossary.md')];

  it('lists the words not to say, and reads the files it checks', () => {
    expect(phrases.length).toBeGreaterThan(5);
    expect(files.length).toBeGreaterThan(500);
  });

  it('finds none of them in the code, the README or docs', () => {
    const found = files.flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8').toLowerCase();
      return phrases.filter((p) => text.includes(p.not.toLowerCase())).map((p) => `${file}: "${p.not}" (say: ${p.say})`);
    });
    expect(found).toEqual([]);
  });
});

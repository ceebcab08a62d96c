import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRITE_TEXT } from '../../db/statement.js';
import { issueSession } from '../../domain/auth/sessions.js';
import { verifyAuditChain } from '../../domain/logs/audit-chain.js';
import { currentRequestContext } from '../../lib/request-context.js';
import { plausibleBody, type Schema, type SchemaDocument } from '../helpers/plausible-body.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

/**
 * Every admin write route of the OpenAPI document, called with a plausible body built from its
 * schema (its required fields, first enum values, ids of rows that exist): every statement the
 * in-process API sends on behalf of the call is watched on its connection (pg's own
 * `Client.prototype.query`), and the test fails when a transaction of the call commits a write
 * without an audit row in it, or when the call writes outside a transaction. A call may commit
 * twice (each transaction carries its row); the routes that did are listed in the test's output.
 */
type Operation = { requestBody?: { content: Record<string, { schema?: Schema }> }; 'x-access'?: { surface: string } };

const AUDIT_INSERT = /^\s*INSERT\s+INTO\s+admin_audit_logs\b/i;
const BEGIN = /^\s*(BEGIN|START TRANSACTION)\b/i;
const END = /^\s*(COMMIT|ROLLBACK)\b/i;

type Call = { route: string; problems: string[]; commits: number };
type Open = { call: Call; writes: string[]; audited: boolean };

let platform: TestPlatform;
let doc: SchemaDocument & { paths: Record<string, Record<string, Operation>> };
let adminId: number;

beforeAll(async () => {
  platform = await startTestPlatform();
  doc = (await (await fetch(`${platform.baseUrl}/api/openapi.json`)).json()) as typeof doc;
  await platform.api.post('/api/v2/client/register', { body: { email: `matrix-${platform.id}@example.com`, password: 'matrix-password-1' } });
  adminId = (await platform.deps.db.models.Admin.findOne({ where: { username: 'root' } }))?.id as number;
});
afterAll(() => platform?.close());

describe('every admin write route commits each change with its audit row', () => {
  it('no transaction of an admin write commits a write without its row, and nothing is written outside a transaction', { timeout: 600_000 }, async () => {
    const calls = new Map<string, Call>();
    const open = new Map<object, Open>();
    const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const original = proto.query;
    proto.query = function watch(this: object, ...args: unknown[]) {
      const first = args[0];
      const text = typeof first === 'string' ? first : (first as { text?: unknown } | null)?.text;
      const context = currentRequestContext();
      const call = context ? calls.get(context.requestId) : undefined;
      const auditing = call !== undefined && context?.pendingAudit !== undefined && !context.pendingAudit.closed;
      if (typeof text === 'string') {
        const tx = open.get(this);
        if (BEGIN.test(text)) {
          if (auditing) open.set(this, { call, writes: [], audited: false });
        } else if (tx && END.test(text)) {
          open.delete(this);
          if (/^\s*COMMIT/i.test(text) && tx.writes.length > 0) {
            tx.call.commits += 1;
            if (!tx.audited) tx.call.problems.push(`committed without its audit row: ${tx.writes[0]?.slice(0, 120)}`);
          }
        } else if (tx) {
          if (AUDIT_INSERT.test(text)) tx.audited = true;
          else if (WRITE_TEXT.test(text)) tx.writes.push(text);
        } else if (auditing && WRITE_TEXT.test(text) && !AUDIT_INSERT.test(text)) {
          call.problems.push(`wrote outside a transaction: ${text.slice(0, 120)}`);
        }
      }
      return original.apply(this, args);
    };
    const operations = Object.entries(doc.paths)
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })))
      .filter(({ method, op }) => method !== 'get' && op['x-access']?.surface === 'admin')
      // Deletes last, so that what the others name still exists while they run.
      .sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
    expect(operations.length).toBeGreaterThan(60);
    let answered2xx = 0;
    try {
      for (const { path, method, op } of operations) {
        const requestId = `matrix-${calls.size}`;
        const call: Call = { route: `${method.toUpperCase()} ${path}`, problems: [], commits: 0 };
        calls.set(requestId, call);
        const token = (await issueSession(platform.deps, 'admin', adminId, { ip: '127.0.0.1', userAgent: 'matrix' })).access_token;
        const schema = op.requestBody?.content['application/json']?.schema;
        const res = await fetch(new URL(path.replace(/\{[^}]+\}/g, '1'), platform.baseUrl), {
          method: method.toUpperCase(),
          headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId, ...(schema ? { 'content-type': 'application/json' } : {}) },
          ...(schema ? { body: JSON.stringify(plausibleBody(doc, schema)) } : {}),
        });
        await res.arrayBuffer();
        if (res.status >= 500) call.problems.push(`answered ${res.status}`);
        if (res.status < 300) answered2xx += 1;
      }
    } finally {
      proto.query = original;
    }
    const problems = [...calls.values()].flatMap((c) => c.problems.map((p) => `${c.route}: ${p}`));
    const twice = [...calls.values()].filter((c) => c.commits > 1).map((c) => `${c.route} (${c.commits})`);
    const committed = [...calls.values()].filter((c) => c.commits > 0).length;
    console.log(`${operations.length} admin write routes: ${answered2xx} answered 2xx, ${committed} committed a change; committed more than once: ${twice.join(', ') || 'none'}`);
    expect(problems).toEqual([]);
    expect(committed).toBeGreaterThan(10);
    expect((await verifyAuditChain(platform.deps)).intact).toBe(true);
  });
});

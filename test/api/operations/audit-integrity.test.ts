import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { verifyAuditChain, verifyAuditChainDaily } from '../../../domain/logs/audit-chain.js';
import { startApiProcess } from '../../helpers/api-process.js';
import { expectError } from '../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { eventually } from '../../helpers/wait.js';

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

async function newUser(email: string): Promise<number> {
  const res = await platform.api.post('/api/v2/admin/users', { token, body: { email, password: 'audit-Secret-pw-2026' } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data.id as number;
}

async function auditRows(requestId: string) {
  const res = await platform.api.get('/api/v2/admin/audit-logs', { token, query: { request_id: requestId } });
  return res.body.data.list as Array<{ id: number; status: number; code: number; route: string }>;
}

describe('a junk request cannot take another admin write out of the audit', () => {
  it('a body with \\u0000 and a lone surrogate sent beside a disable: both have their own row', async () => {
    const userId = await newUser('race@example.com');
    const [junkNul, disabled, junkSurrogate] = await Promise.all([
      platform.api.post('/api/v2/admin/auth/roles', { token, body: { code: 'a\u0000', name: 'x\u0000' } }),
      platform.api.post(`/api/v2/admin/users/${userId}/disable`, { token }),
      platform.api.post('/api/v2/admin/auth/roles', { token, body: { code: 'b\ud800', name: '\udfff' } }),
    ]);
    expectError(junkNul, 42200, 422);
    expectError(junkSurrogate, 42200, 422);
    expect(disabled.body.code, disabled.body.message).toBe(0);
    await platform.deps.operations?.audit?.flush();

    const disableRows = await eventually(async () => {
      const rows = await auditRows(disabled.headers.get('x-request-id') as string);
      return rows.length ? rows : null;
    });
    expect(disableRows).toHaveLength(1);
    expect(disableRows[0]).toMatchObject({ route: '/api/v2/admin/users/{user}/disable', status: 200, code: 0 });

    for (const [junk, text] of [
      [junkNul, '\\u0000'],
      [junkSurrogate, '\\ud800'],
    ] as const) {
      const rows = await eventually(async () => {
        const found = await auditRows(junk.headers.get('x-request-id') as string);
        return found.length ? found : null;
      });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ route: '/api/v2/admin/auth/roles', status: 422, code: 42200 });
      const detail = await platform.api.get(`/api/v2/admin/audit-logs/${rows[0]?.id}`, { token });
      // What jsonb refuses is kept as escaped text.
      expect(JSON.parse(detail.body.data.request).body.code).toContain(text);
    }
  });
});

async function sql<T extends object>(text: string, bind: unknown[] = []): Promise<T[]> {
  return platform.deps.db.sequelize.query<T>(text, { bind, type: QueryTypes.SELECT });
}

const DISABLE_ROUTE = '/api/v2/admin/users/{user}/disable';

async function disableState(userId: number) {
  const [user] = await sql<{ status: string }>('SELECT status FROM users WHERE id = $1', [userId]);
  const [rows] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM admin_audit_logs WHERE source = 'request' AND route = $1 AND target_id = $2`, [
    DISABLE_ROUTE,
    String(userId),
  ]);
  return { disabled: user?.status === 'disabled', rows: rows?.n ?? 0 };
}

describe('a change and its audit row commit together', () => {
  it('fails closed: when the row cannot be written, the change is rolled back and the call answers a server error', async () => {
    const userId = await newUser('closed@example.com');
    // Stands for any reason the insert fails (disk, privilege, constraint): the database refuses this route's row.
    await sql(`ALTER TABLE admin_audit_logs ADD CONSTRAINT test_refuse_disable CHECK (route IS DISTINCT FROM '${DISABLE_ROUTE}') NOT VALID`);
    try {
      const res = await platform.api.post(`/api/v2/admin/users/${userId}/disable`, { token });
      expectError(res, 50000, 500);
      expect(res.body.message).toBe('服务器内部错误，请稍后再试');
      await platform.deps.operations?.audit.flush();
      expect(await disableState(userId)).toEqual({ disabled: false, rows: 0 });
    } finally {
      await sql('ALTER TABLE admin_audit_logs DROP CONSTRAINT test_refuse_disable');
    }
    const again = await platform.api.post(`/api/v2/admin/users/${userId}/disable`, { token });
    expect(again.body.code, again.body.message).toBe(0);
    expect(await disableState(userId)).toEqual({ disabled: true, rows: 1 });
  });

  it('a crash between the change and the answer leaves both the change and its row, or neither', async () => {
    const userId = await newUser('crash@example.com');
    const api = startApiProcess(platform);
    const base = await api.ready;
    await platform.deps.operations?.audit.flush();
    // Every audit insert waits while this lock is held: the process is stopped at its audit write.
    const lock = await platform.deps.db.sequelize.transaction();
    await platform.deps.db.sequelize.query('LOCK TABLE admin_audit_logs IN SHARE ROW EXCLUSIVE MODE', { transaction: lock });
    const waiting = () =>
      sql<{ pid: number }>(
        `SELECT l.pid FROM pg_locks l WHERE l.relation = 'admin_audit_logs'::regclass AND NOT l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
    try {
      const answer = fetch(`${base}/api/v2/admin/users/${userId}/disable`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }).then(
        (res) => res.status,
        () => 'no answer',
      );
      const blocked = await eventually(async () => {
        const rows = await waiting();
        return rows.length ? rows : null;
      });
      // The crash: the process dies, and with it its connections (their transactions end unfinished).
      await api.kill();
      for (const { pid } of blocked) await sql('SELECT pg_terminate_backend($1)', [pid]);
      await answer;
    } finally {
      await lock.rollback();
      await api.kill();
    }
    const state = await disableState(userId);
    expect(state.rows).toBe(state.disabled ? 1 : 0);
  });
});

describe('a crash right after the commit of an admin write, before its answer', () => {
  it('leaves the change with its row (outcome and created target) committed together; no answer left unrecorded; the chain verifies', async () => {
    const api = startApiProcess(platform);
    const base = await api.ready;
    const requestId = `crash-after-commit-${platform.id}`;
    const email = `after-commit-${platform.id}@example.com`;
    const { sequelize } = platform.deps.db;
    // The answer's row (written after the commit, before the answer leaves) waits on a lock this test holds:
    // the process is stopped between the commit of the change and its answer.
    await platform.deps.db.read(`CREATE FUNCTION test_hold_answer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.source = 'answer' AND NEW.request_id = '${requestId}' THEN PERFORM pg_advisory_xact_lock(736201); END IF; RETURN NEW; END $$`);
    await sql(`CREATE TRIGGER test_hold_answer BEFORE INSERT ON admin_audit_logs FOR EACH ROW EXECUTE FUNCTION test_hold_answer()`);
    const holder = await sequelize.transaction();
    try {
      await sequelize.query('SELECT pg_advisory_xact_lock(736201)', { transaction: holder });
      const answer = fetch(`${base}/api/v2/admin/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ email, password: 'audit-Secret-pw-2026' }),
      }).then(
        (res) => res.status,
        () => 'no answer',
      );
      const blocked = await eventually(async () => {
        const rows = await sql<{ pid: number }>(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = 736201 AND NOT granted`);
        return rows.length ? rows : null;
      });
      await api.kill();
      for (const { pid } of blocked) await sql('SELECT pg_terminate_backend($1)', [pid]);
      expect(await answer).toBe('no answer');
    } finally {
      await holder.rollback();
      await api.kill();
      await sql('DROP TRIGGER test_hold_answer ON admin_audit_logs');
      await sql('DROP FUNCTION test_hold_answer()');
    }
    const [user] = await sql<{ id: number }>('SELECT id FROM users WHERE email = $1', [email]);
    expect(user).toBeDefined();
    const rows = await sql<{ source: string; status: number; code: number; target_type: string; target_id: string }>(
      'SELECT source, status, code, target_type, target_id FROM admin_audit_logs WHERE request_id = $1 ORDER BY id',
      [requestId],
    );
    // The change committed with its complete row: the outcome of a committed change and the user it created.
    expect(rows).toEqual([{ source: 'request', status: 200, code: 0, target_type: 'users', target_id: String(user?.id) }]);
    expect((await verifyAuditChain(platform.deps)).intact).toBe(true);
  });
});

describe('user administration writes in transactions', () => {
  it('creating, editing and annotating a user commit their audit rows with the change (an answer row follows each)', async () => {
    const created = await platform.api.post('/api/v2/admin/users', { token, body: { email: 'tx@example.com', password: 'audit-Secret-pw-2026' } });
    const id = created.body.data.id as number;
    const edited = await platform.api.put(`/api/v2/admin/users/${id}`, { token, body: { nickname: '事务' } });
    const noted = await platform.api.post(`/api/v2/admin/users/${id}/notes`, { token, body: { content: '审计' } });
    await platform.deps.operations?.audit.flush();
    for (const res of [created, edited, noted]) {
      expect(res.body.code, res.body.message).toBe(0);
      const rows = await sql<{ source: string }>('SELECT source FROM admin_audit_logs WHERE request_id = $1 ORDER BY id', [res.headers.get('x-request-id')]);
      // A row written after the answer (outside a transaction) would be a lone `request` row.
      expect(rows.map((r) => r.source)).toEqual(['request', 'answer']);
      const listed = await auditRows(res.headers.get('x-request-id') as string);
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ status: 200, code: 0 });
    }
  });
});

describe('a write a domain function makes without a transaction', () => {
  it('runs in a transaction with the audit row (the role create is a plain Model.create): it fails closed too', async () => {
    const created = await platform.api.post('/api/v2/admin/auth/roles', { token, body: { code: 'auditor_a', name: '审计员', permissions: [] } });
    expect(created.body.code, created.body.message).toBe(0);
    await platform.deps.operations?.audit.flush();
    const rows = await sql<{ source: string }>('SELECT source FROM admin_audit_logs WHERE request_id = $1 ORDER BY id', [created.headers.get('x-request-id')]);
    expect(rows.map((r) => r.source)).toEqual(['request', 'answer']);

    await sql(`ALTER TABLE admin_audit_logs ADD CONSTRAINT test_refuse_roles CHECK (route IS DISTINCT FROM '/api/v2/admin/auth/roles') NOT VALID`);
    try {
      const refused = await platform.api.post('/api/v2/admin/auth/roles', { token, body: { code: 'auditor_b', name: '审计员乙', permissions: [] } });
      expectError(refused, 50000, 500);
    } finally {
      await sql('ALTER TABLE admin_audit_logs DROP CONSTRAINT test_refuse_roles');
    }
    const [role] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM admin_roles WHERE code = 'auditor_b'`);
    expect(role?.n).toBe(0);
  });

  it('a raw statement outside a transaction (the ticket department create, one sqlOne) commits with its row too', async () => {
    const created = await platform.api.post('/api/v2/admin/ticket-departments', { token, body: { name: '审计部门' } });
    expect(created.body.code, created.body.message).toBe(0);
    await platform.deps.operations?.audit.flush();
    const rows = await sql<{ source: string }>('SELECT source FROM admin_audit_logs WHERE request_id = $1 ORDER BY id', [created.headers.get('x-request-id')]);
    expect(rows.map((r) => r.source)).toEqual(['request', 'answer']);
  });
});

describe('the hash chain', () => {
  type Report = { intact: boolean; checked: number; head: { chain_seq: number; row_hash: string }; first_break: null | { kind: string; id: number | null } };
  const verify = async () => {
    const res = await platform.api.get('/api/v2/admin/audit-logs/verify', { token });
    expect(res.body.code, res.body.message).toBe(0);
    return res.body.data as Report;
  };
  /** What a superuser can do by hand: the append-only triggers off, a statement, the triggers on. */
  const byHand = (statement: string, bind: unknown[]) =>
    platform.deps.db.sequelize.transaction(async (transaction) => {
      await platform.deps.db.sequelize.query('ALTER TABLE admin_audit_logs DISABLE TRIGGER USER', { transaction });
      await platform.deps.db.sequelize.query(statement, { bind, transaction });
      await platform.deps.db.sequelize.query('ALTER TABLE admin_audit_logs ENABLE TRIGGER USER', { transaction });
    });

  it('chains every row in commit order, request and catalogue rows alike, and verifies intact', async () => {
    await platform.api.post('/api/v2/admin/product-menus', { token, body: { name: '链菜单', product_type: 'cloud_server' } });
    await platform.deps.operations?.audit.flush();
    const rows = await sql<{ chain_seq: string; prev_hash: string; row_hash: string; source: string }>(
      'SELECT a.chain_seq::text AS chain_seq, a.prev_hash, a.row_hash, a.source FROM admin_audit_logs a ORDER BY a.chain_seq',
    );
    expect(new Set(rows.map((r) => r.source))).toEqual(new Set(['request', 'answer', 'catalogue']));
    rows.forEach((row, i) => {
      expect(Number(row.chain_seq)).toBe(i + 1);
      expect(row.prev_hash).toBe(i === 0 ? '0'.repeat(64) : rows[i - 1]?.row_hash);
    });
    const report = await verify();
    expect(report).toMatchObject({ intact: true, checked: rows.length, first_break: null, head: { chain_seq: rows.length, row_hash: rows.at(-1)?.row_hash } });
    const summary = await verifyAuditChainDaily(platform.deps);
    expect(summary).toMatchObject({ intact: true, head_seq: rows.length, head_hash: rows.at(-1)?.row_hash });
    const [logged] = await sql<{ detail: { head_hash: string } }>(`SELECT detail FROM system_logs WHERE category = 'audit' AND event = 'audit.chain.intact'`);
    expect(logged?.detail.head_hash).toBe(rows.at(-1)?.row_hash);
  });

  it('finds a row edited by hand in the database, and a row deleted by hand', async () => {
    const [target] = await sql<{ id: string; admin_name: string }>(`SELECT id::text AS id, admin_name FROM admin_audit_logs WHERE source = 'request' ORDER BY chain_seq LIMIT 1 OFFSET 2`);
    const id = Number(target?.id);
    await byHand('UPDATE admin_audit_logs SET admin_name = $1 WHERE id = $2', ['someone-else', id]);
    // Before the daily check's checkpoint (the test above ran it): the full check finds it, the daily one reads only what came after.
    expect((await verify()).first_break).toMatchObject({ kind: 'edited', id });
    expect(await verifyAuditChainDaily(platform.deps)).toMatchObject({ intact: true });

    // After the checkpoint: the daily check finds it.
    await platform.api.post('/api/v2/admin/product-menus', { token, body: { name: '链菜单二', product_type: 'cloud_server' } });
    await platform.deps.operations?.audit.flush();
    const [late] = await sql<{ id: string; ip: string }>(
      `SELECT id::text AS id, ip FROM admin_audit_logs WHERE chain_seq > (SELECT max(chain_seq) FROM admin_audit_chain_checkpoints) ORDER BY chain_seq LIMIT 1`,
    );
    expect(late).toBeDefined();
    await byHand('UPDATE admin_audit_logs SET ip = $1 WHERE id = $2', ['10.9.9.9', Number(late?.id)]);
    await expect(verifyAuditChainDaily(platform.deps)).rejects.toThrow(/审计链断裂/);
    const [broken] = await sql<{ n: number; detail: { break_id: number } }>(
      `SELECT count(*) OVER ()::int AS n, detail FROM system_logs WHERE category = 'audit' AND event = 'audit.chain.broken'`,
    );
    expect(broken?.n).toBe(1);
    expect(broken?.detail.break_id).toBe(Number(late?.id));
    await byHand('UPDATE admin_audit_logs SET ip = $1 WHERE id = $2', [late?.ip, Number(late?.id)]);
    expect(await verifyAuditChainDaily(platform.deps)).toMatchObject({ intact: true });

    await byHand('UPDATE admin_audit_logs SET admin_name = $1 WHERE id = $2', [target?.admin_name, id]);
    expect((await verify()).intact).toBe(true);

    const [next] = await sql<{ id: string }>(`SELECT id::text AS id FROM admin_audit_logs WHERE chain_seq > (SELECT chain_seq FROM admin_audit_logs WHERE id = $1) ORDER BY chain_seq LIMIT 1`, [id]);
    await byHand('DELETE FROM admin_audit_logs WHERE id = $1', [id]);
    expect((await verify()).first_break).toMatchObject({ kind: 'missing_before', id: Number(next?.id) });
  });
});

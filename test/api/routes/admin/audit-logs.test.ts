import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { insertAuditRecord } from '../../../../domain/logs/admin-audit.js';
import { expectError } from '../../../helpers/http.js';
import { registerKnownSecret } from '../../../helpers/known-secrets.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { eventually } from '../../../helpers/wait.js';

let platform: TestPlatform;
let token: string;

const USER_PASSWORD = 'first-Secret-pw-2026';
const NEW_PASSWORD = 'second-Secret-pw-2026';
const ID_NUMBER = '110101199003074517';

beforeAll(async () => {
  registerKnownSecret(USER_PASSWORD);
  registerKnownSecret(NEW_PASSWORD);
  platform = await startTestPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

async function sql<T extends object>(text: string, bind: unknown[] = []): Promise<T[]> {
  return platform.deps.db.sequelize.query<T>(text, { bind, type: QueryTypes.SELECT });
}

/** Every text column of a table as one string, to look for what must never be there. */
async function tableText(table: string): Promise<string> {
  const rows = await sql<{ t: string }>(`SELECT coalesce(string_agg(to_jsonb(x)::text, '\n'), '') AS t FROM ${table} x`);
  return rows[0]?.t ?? '';
}

async function flushLogs() {
  await platform.deps.operations?.audit.flush();
  await platform.deps.operations?.requestLog.flush();
}

describe('admin audit', () => {
  let userId: number;

  it('records an admin write with route template, target, outcome, request id and address; never the password', async () => {
    const res = await platform.api.post('/api/v2/admin/users', {
      token,
      body: { email: 'audited@example.com', nickname: `备注 ${ID_NUMBER}`, password: USER_PASSWORD },
    });
    expect(res.body.code, res.body.message).toBe(0);
    userId = res.body.data.id;
    const requestId = res.headers.get('x-request-id') as string;
    await flushLogs();
    const list = await eventually(async () => {
      const found = await platform.api.get('/api/v2/admin/audit-logs', { token, query: { request_id: requestId } });
      return found.body.data.total === 1 ? found.body.data.list : null;
    });
    expect(list[0]).toMatchObject({
      source: 'request',
      admin_name: 'root',
      method: 'POST',
      route: '/api/v2/admin/users',
      status: 200,
      code: 0,
      target_type: 'users',
      target_id: String(userId),
      action: 'create',
      request_id: requestId,
      ip: '127.0.0.1',
    });
    const detail = await platform.api.get(`/api/v2/admin/audit-logs/${list[0].id}`, { token });
    expect(JSON.parse(detail.body.data.request).body).toMatchObject({ email: 'audited@example.com', password: '[REDACTED]' });
    expect(JSON.parse(detail.body.data.after)).toMatchObject({ id: userId, email: 'audited@example.com' });
    const stored = await tableText('admin_audit_logs');
    expect(stored).not.toContain(USER_PASSWORD);
    expect(stored).not.toContain(ID_NUMBER);
  });

  it('records the before image a domain function offers, and refused attempts with their code', async () => {
    const res = await platform.api.put(`/api/v2/admin/users/${userId}`, { token, body: { nickname: '新昵称' } });
    expect(res.body.code).toBe(0);
    const refused = await platform.api.put(`/api/v2/admin/users/${userId}`, { token, body: { email: 'not-an-email' } });
    expectError(refused, 42200, 422);
    await flushLogs();
    const rows = await eventually(async () => {
      const found = await platform.api.get('/api/v2/admin/audit-logs', { token, query: { target_type: 'user', target_id: String(userId) } });
      return found.body.data.total >= 2 ? found.body.data.list : null;
    });
    expect(rows.map((r: { code: number }) => r.code).sort()).toEqual([0, 42200]);
    const ok = rows.find((r: { code: number }) => r.code === 0);
    expect(ok).toMatchObject({ route: '/api/v2/admin/users/{user}', action: 'update', method: 'PUT' });
    const detail = await platform.api.get(`/api/v2/admin/audit-logs/${ok.id}`, { token });
    expect(JSON.parse(detail.body.data.before)).toMatchObject({ id: userId, email: 'audited@example.com' });
    expect(detail.body.data.before).not.toContain(ID_NUMBER);
    expect(JSON.parse(detail.body.data.after)).toMatchObject({ nickname: '新昵称' });
    const failed = await platform.api.get('/api/v2/admin/audit-logs', { token, query: { failed: 'true' } });
    expect(failed.body.data.list.every((r: { status: number }) => r.status >= 400)).toBe(true);
  });

  it('filters on the merged outcome: an answer row replaces the target and status of its request', async () => {
    const insert = (source: string, requestId: string, targetType: string, targetId: string, status: number) =>
      sql(
        `INSERT INTO admin_audit_logs (source, admin_name, action, method, route, request_id, target_type, target_id, status, code)
         VALUES ($1, 'merged', 'update', 'PUT', '/api/v2/admin/merged', $2, $3, $4, $5, $6) RETURNING id`,
        [source, requestId, targetType, targetId, status, status >= 400 ? 40900 : 0],
      );
    await insert('request', 'merged-a', 'menu', 'merged-1', 200);
    await insert('answer', 'merged-a', 'user', 'merged-2', 409);
    await insert('request', 'merged-b', 'menu', 'merged-3', 500);
    await insert('answer', 'merged-b', 'menu', 'merged-3', 200);
    const ids = async (query: Record<string, string>) =>
      ((await platform.api.get('/api/v2/admin/audit-logs', { token, query: { route: '/api/v2/admin/merged', ...query } })).body.data.list as Array<{ request_id: string }>).map(
        (r) => r.request_id,
      );
    expect(await ids({ target_type: 'user' })).toEqual(['merged-a']);
    expect(await ids({ target_id: 'merged-2' })).toEqual(['merged-a']);
    expect(await ids({ target_id: 'merged-1' })).toEqual([]);
    expect(await ids({ target_type: 'menu' })).toEqual(['merged-b']);
    expect(await ids({ failed: '1' })).toEqual(['merged-a']);
    expect(await ids({ failed: '0' })).toEqual(['merged-b']);
    const counted = await platform.api.get('/api/v2/admin/audit-logs', { token, query: { route: '/api/v2/admin/merged', failed: '1' } });
    expect(counted.body.data.total).toBe(1);
  });

  it('the database refuses to change or delete an audit row, whoever asks', async () => {
    await expect(platform.deps.db.sequelize.query('UPDATE admin_audit_logs SET admin_name = $1', { bind: ['someone'] })).rejects.toThrow(/append-only/);
    await expect(platform.deps.db.sequelize.query('DELETE FROM admin_audit_logs')).rejects.toThrow(/append-only/);
    await expect(platform.deps.db.sequelize.query('TRUNCATE admin_audit_logs')).rejects.toThrow(/append-only/);
    const [count] = await sql<{ n: number }>('SELECT count(*)::int AS n FROM admin_audit_logs');
    expect(count?.n).toBeGreaterThan(0);
  });

  it('catalogue changes land in the same audit, linked to the request that made them', async () => {
    const res = await platform.api.post('/api/v2/admin/product-menus', { token, body: { name: '审计菜单', product_type: 'cloud_server' } });
    expect(res.body.code, res.body.message).toBe(0);
    const requestId = res.headers.get('x-request-id') as string;
    await flushLogs();
    const rows = await eventually(async () => {
      const found = await platform.api.get('/api/v2/admin/audit-logs', { token, query: { request_id: requestId } });
      return found.body.data.total === 2 ? found.body.data.list : null;
    });
    expect(rows.map((r: { source: string }) => r.source).sort()).toEqual(['catalogue', 'request']);
    const catalogue = await platform.api.get('/api/v2/admin/catalogue-audit-logs', { token, query: { entity_type: 'menu', entity_id: res.body.data.id } });
    expect(catalogue.body.data.total).toBe(1);
    expect(catalogue.body.data.list[0].action).toBe('create');
  });
});

describe('product types', () => {
  it('lists the fixed product types read-only', async () => {
    const res = await platform.api.get('/api/v2/admin/product-types', { token });
    expect(res.body.data.list).toHaveLength(8);
  });
});

describe('admin writes at once', () => {
  it('twenty concurrent admin writes all answer without a server error, each with its audit row, and the chain verifies', async () => {
    const menus: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const made = await platform.api.post('/api/v2/admin/product-menus', { token, body: { name: `并发菜单${i}`, product_type: 'cloud_server' } });
      expect(made.body.code, made.body.message).toBe(0);
      menus.push(made.body.data.id as number);
    }
    const writes = Array.from({ length: 20 }, (_, i) => {
      if (i % 4 === 0) {
        const items = menus.map((id, j) => ({ id, sort_order: (j * 7 + i) % 11 }));
        return platform.api.post('/api/v2/admin/product-menus/reorders', { token, body: { items: i % 8 === 0 ? items : [...items].reverse() } });
      }
      if (i % 4 === 1) return platform.api.post('/api/v2/admin/product-menus', { token, body: { name: `并发新菜单${i}`, product_type: 'cloud_server' } });
      return platform.api.put(`/api/v2/admin/product-menus/${menus[i % menus.length]}`, { token, body: { name: `并发改名${i}` } });
    });
    const answers = await Promise.all(writes);
    expect(answers.map((a) => a.status).filter((s) => s >= 500)).toEqual([]);
    expect(answers.map((a) => a.body.code)).toEqual(answers.map(() => 0));
    await flushLogs();
    for (const answer of answers) {
      const requestId = answer.headers.get('x-request-id') as string;
      const rows = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM admin_audit_logs WHERE request_id = $1 AND source = 'request'`, [requestId]);
      expect(rows[0]?.n).toBe(1);
    }
    const verified = await platform.api.get('/api/v2/admin/audit-logs/verify', { token });
    expect(verified.body.data).toMatchObject({ intact: true, first_break: null });
  });
});

describe('an admin write in a deadlock on the audit chain head', () => {
  it('is run again whole and answers without a server error, with its audit row, and the chain verifies', async () => {
    const made = await platform.api.post('/api/v2/admin/product-menus', { token, body: { name: '死锁菜单', product_type: 'cloud_server' } });
    expect(made.body.code, made.body.message).toBe(0);
    const menuId = made.body.data.id as number;
    const { sequelize } = platform.deps.db;
    // Another writer holds the chain head (its audit row inserted) and then wants the menu's row,
    // which the admin write holds while it waits for the head: a deadlock the admin write detects
    // (the other writer checks for deadlocks only after 30 s).
    let answer: Promise<Awaited<ReturnType<typeof platform.api.put>>> | null = null;
    await sequelize.transaction(async (transaction) => {
      await sequelize.query(`SET LOCAL deadlock_timeout = '30s'`, { transaction });
      const [me] = await sequelize.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', { transaction, type: QueryTypes.SELECT });
      await insertAuditRecord((text, bind) => sequelize.query(text, { bind, transaction }), {
        adminId: 1, adminName: 'other-writer', method: 'POST', route: '/test/other-writer', status: 200, code: 0, targetType: null, targetId: null,
        action: 'test', before: null, after: null, request: null, requestId: 'other-writer', ip: '', userAgent: '', at: new Date(),
      });
      answer = platform.api.put(`/api/v2/admin/product-menus/${menuId}`, { token, body: { name: '死锁菜单改名' } });
      await eventually(async () => {
        const waiting = await sql<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`,
          [me?.pid],
        );
        return (waiting[0]?.n ?? 0) >= 1 ? true : null;
      });
      await sequelize.query(`UPDATE product_menus SET updated_at = now() WHERE id = $1`, { bind: [menuId], transaction });
    });
    const res = await (answer as unknown as ReturnType<typeof platform.api.put>);
    expect(res.status).toBeLessThan(500);
    expect(res.body.code, res.body.message).toBe(0);
    await flushLogs();
    const rows = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM admin_audit_logs WHERE request_id = $1 AND source = 'request'`, [res.headers.get('x-request-id')]);
    expect(rows[0]?.n).toBe(1);
    const verified = await platform.api.get('/api/v2/admin/audit-logs/verify', { token });
    expect(verified.body.data).toMatchObject({ intact: true, first_break: null });
  });
});

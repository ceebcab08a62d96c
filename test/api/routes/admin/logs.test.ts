import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPlugin } from '../../../../domain/plugins/plugin-install.js';
import { disablePlugin } from '../../../../domain/plugins/plugin-lifecycle.js';
import { flushLogs, selectRows, tableText } from '../../../helpers/db-read.js';
import { expectError } from '../../../helpers/http.js';
import { registerKnownSecret } from '../../../helpers/known-secrets.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { eventually } from '../../../helpers/wait.js';
import { TEST_MERCHANT_PRIVATE_KEY_PEM, TEST_MERCHANT_PUBLIC_KEY_PEM } from '../../../plugins/payment/qrpay-test-keys.js';

let platform: TestPlatform;
let token: string;

const PROBE = 'probe-Secret-pw-2026';
const ID_NUMBER = '110101199003074517';

beforeAll(async () => {
  registerKnownSecret(PROBE);
  platform = await startTestPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

const sql = <T extends object>(text: string, bind: unknown[] = []) => selectRows<T>(platform, text, bind);

describe('logs', () => {
  it('writes the request log with the route template, who and the outcome, never a body or query', async () => {
    // An undeclared parameter is refused (42200) before the route runs, and logged like any answer.
    const res = await platform.api.get('/api/v2/admin/users/424242', { token, query: { probe: PROBE } });
    expectError(res, 42200, 422);
    const requestId = res.headers.get('x-request-id') as string;
    await flushLogs(platform);
    const rows = await eventually(async () => {
      const found = await platform.api.get('/api/v2/admin/logs/api-logs', { token, query: { request_id: requestId } });
      return found.body.data.total === 1 ? found.body.data.list : null;
    });
    expect(rows[0]).toMatchObject({ method: 'GET', route: '/api/v2/admin/users/{user}', status: 422, code: 42200, admin_id: expect.any(Number), ip: '127.0.0.1' });
    const stored = await tableText(platform, 'api_request_logs');
    expect(stored).not.toContain('424242');
    expect(stored).not.toContain(PROBE);
    const filtered = await platform.api.get('/api/v2/admin/logs/api-logs', { token, query: { status: 422, route: '/api/v2/admin/users/{user}' } });
    expect(filtered.body.data.total).toBeGreaterThanOrEqual(1);
  });

  it('leaves answered public catalogue reads out of the request log and keeps the ones that fail', async () => {
    const read = await platform.api.get('/api/v2/site/products', { query: { page_size: 1 } });
    expect(read.status).toBe(200);
    const missing = await platform.api.get('/api/v2/site/products/987654321');
    expect(missing.status).toBe(404);
    await flushLogs(platform);
    const logged = async (requestId: string) =>
      (await platform.api.get('/api/v2/admin/logs/api-logs', { token, query: { request_id: requestId } })).body.data.total as number;
    await eventually(async () => ((await logged(missing.headers.get('x-request-id') as string)) === 1 ? true : null));
    expect(await logged(read.headers.get('x-request-id') as string)).toBe(0);
  });

  it('writes the system log for migrations and plugin lifecycle, with no configuration values', async () => {
    const plugin = await installPlugin(platform.deps, 'payment', 'qrpay');
    const secret = TEST_MERCHANT_PRIVATE_KEY_PEM;
    registerKnownSecret(secret);
    const configured = await platform.api.put(`/api/v2/admin/integration-plugins/${plugin.id}/config`, {
      token,
      body: { config: { app_id: 'audit-app', gateway_url: 'http://127.0.0.1:9/gateway', gateway_public_key: TEST_MERCHANT_PUBLIC_KEY_PEM, merchant_private_key: secret } },
    });
    await disablePlugin(platform.deps, plugin.id).catch(() => {});
    const res = await platform.api.get('/api/v2/admin/logs/system-logs', { token, query: { category: 'plugin' } });
    const events = res.body.data.list.map((r: { event: string }) => r.event);
    expect(events).toContain('plugin.installed');
    expect(configured.body.code, JSON.stringify(configured.body.data)).toBe(0);
    expect(events).toContain('plugin.configured');
    // The audit keeps the field name, never the value.
    expect(await tableText(platform, 'admin_audit_logs')).not.toContain(secret);
    expect(await tableText(platform, 'system_logs')).not.toContain(secret);
    const one = await platform.api.get(`/api/v2/admin/logs/system-logs/${res.body.data.list[0].id}`, { token });
    expect(one.body.data).toMatchObject({ id: res.body.data.list[0].id, category: 'plugin' });
    expectError(await platform.api.get('/api/v2/admin/logs/system-logs/999999', { token }), 40400, 404);
    const migrations = await platform.api.get('/api/v2/admin/logs/system-logs', { token, query: { category: 'migration' } });
    expect(migrations.body.data.total).toBeGreaterThanOrEqual(1);
  });

  it('reads SMS and mail logs as views of the notification log, and the task log', async () => {
    const [user] = await sql<{ id: number }>(`INSERT INTO users (email, nickname, password_hash) VALUES ('n@example.com', 'n', 'x') RETURNING id`);
    await sql(
      `INSERT INTO notification_log (kind, channel, entity_type, entity_id, occasion, user_id, recipient, subject, status, error, sent_at)
       VALUES ('renewal_due', 'sms', 'service', 1, 'a', $1, '138****1111', '到期提醒', 'failed', $2, NULL),
              ('renewal_due', 'mail', 'service', 1, 'a', $1, 'n***@example.com', '到期提醒', 'sent', NULL, now()) RETURNING id`,
      [user?.id, `gateway refused ${ID_NUMBER}`],
    );
    const sms = await platform.api.get('/api/v2/admin/logs/sms-logs', { token });
    expect(sms.body.data.list).toHaveLength(1);
    expect(sms.body.data.list[0]).toMatchObject({ scene: 'renewal_due', scene_label: '到期提醒', recipient: '138****1111', status: 'failed' });
    expect(sms.body.data.list[0].error).not.toContain(ID_NUMBER);
    const mail = await platform.api.get('/api/v2/admin/logs/mail-logs', { token, query: { status: 'sent' } });
    expect(mail.body.data.total).toBe(1);
    expect((await platform.api.get('/api/v2/admin/logs/task-logs', { token })).body.code).toBe(0);
  });

  it('lists login attempts, failed ones included', async () => {
    await platform.api.post('/api/v2/admin/login', { body: { username: 'root', password: 'wrong-password-1' } });
    const failed = await platform.api.get('/api/v2/admin/logs/login-logs', { token, query: { surface: 'admin', account: 'root', success: 0 } });
    expect(failed.body.data.total).toBe(1);
    expect(failed.body.data.list[0]).toMatchObject({ surface: 'admin', account: 'root', success: false, reason: 'bad_password' });
    const succeeded = await platform.api.get('/api/v2/admin/logs/login-logs', { token, query: { account: 'root', success: 1 } });
    expect(succeeded.body.data.total).toBeGreaterThanOrEqual(1);
    expectError(await platform.api.get('/api/v2/admin/logs/login-logs', { token, query: { surface: 'robot' } }), 42200, 422);
    expect(await tableText(platform, 'login_logs')).not.toContain('wrong-password-1');
  });

  it('cleans up one log type by age, in batches, and refuses ages below a type’s floor', async () => {
    await sql(
      `INSERT INTO api_request_logs (method, route, status, duration_ms, created_at)
       SELECT 'GET', '/old', 200, 1, now() - interval '40 days' FROM generate_series(1, 7)`,
    );
    await sql(`INSERT INTO system_logs (level, category, event, created_at) VALUES ('info', 'startup', 'old.start', now() - interval '40 days')`);
    const before = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM api_request_logs WHERE created_at > now() - interval '1 day'`);
    const res = await platform.api.post('/api/v2/admin/logs/clean-up', { token, body: { type: 'api', older_than_days: 30 } });
    expect(res.body.data).toMatchObject({ type: 'api', deleted: 7 });
    const after = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM api_request_logs WHERE created_at > now() - interval '1 day'`);
    expect(after[0]?.n).toBeGreaterThanOrEqual(before[0]?.n ?? 0);
    const [system] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM system_logs WHERE event = 'old.start'`);
    expect(system?.n).toBe(1);
    expectError(await platform.api.post('/api/v2/admin/logs/clean-up', { token, body: { type: 'sms', older_than_days: 3 } }), 42200, 422);
    expectError(await platform.api.post('/api/v2/admin/logs/clean-up', { token, body: { type: 'audit', older_than_days: 3 } }), 42200, 422);
    expectError(await platform.api.post('/api/v2/admin/logs/clean-up', { token, body: { type: 'api', older_than_days: -1 } }), 42200, 422);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { shanghaiToday } from '../../../../domain/dashboard/figures.js';
import { expectError } from '../../../helpers/http.js';
import { seedService } from '../../../helpers/lifecycle.js';
import { registerKnownSecret } from '../../../helpers/known-secrets.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  registerKnownSecret(METRICS_TOKEN);
  platform = await startTestPlatform({ env: { METRICS_TOKEN } });
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

async function sql<T extends object>(text: string, bind: unknown[] = []): Promise<T[]> {
  return platform.deps.db.sequelize.query<T>(text, { bind, type: QueryTypes.SELECT });
}

describe('dashboard', () => {
  it('computes today, month, a range and the state of now from the data', async () => {
    const empty = await platform.api.get('/api/v2/admin/dashboard', { token });
    expect(empty.body.data.today).toMatchObject({ revenue: '0.00', refunds: '0.00', new_users: 0, new_services: 0 });

    const [user] = await sql<{ id: number }>(`INSERT INTO users (email, nickname, password_hash) VALUES ('d@example.com', 'd', 'x') RETURNING id`);
    const uid = user?.id;
    // Two sales paid today, a recharge today, a sale paid 40 days ago; one succeeded refund today.
    const [sale] = await sql<{ id: number }>(
      `INSERT INTO invoices (user_id, type, status, subject, amount, balance_amount, payment_channel, paid_at, operator_type)
       VALUES ($1, 'purchase', 'paid', 's1', 100.10, 100.10, 'admin', now(), 'admin'),
              ($1, 'renew', 'paid', 's2', 20.00, 20.00, 'admin', now(), 'admin'),
              ($1, 'recharge', 'paid', 'r', 50.00, 50.00, 'admin', now(), 'admin'),
              ($1, 'purchase', 'paid', 'old', 7.00, 7.00, 'admin', now() - interval '40 days', 'admin'),
              ($1, 'purchase', 'unpaid', 'u', 9.00, 0, NULL, NULL, 'admin')
       RETURNING id`,
      [uid],
    );
    const [red] = await sql<{ id: number }>(
      `INSERT INTO invoices (user_id, type, status, subject, amount, balance_amount, payment_channel, paid_at, origin_invoice_id, operator_type)
       VALUES ($1, 'refund', 'paid', '退款', -10.05, -10.05, 'balance', now(), $2, 'admin') RETURNING id`,
      [uid, sale?.id],
    );
    await sql(
      `INSERT INTO refunds (user_id, invoice_id, refund_invoice_id, amount, balance_part, third_party_part, refund_method, status, operator_type, refunded_at)
       VALUES ($1, $2, $3, 10.05, 10.05, 0, 'balance', 'succeeded', 'admin', now())`,
      [uid, sale?.id, red?.id],
    );
    // Three services (each with its free purchase invoice): active and due in 2 days, stuck, awaiting an admin.
    const active = await seedService(platform, { userId: uid as number, nextDueAt: new Date(Date.now() + 2 * 86_400_000) });
    const stuck = await seedService(platform, { userId: uid as number, nextDueAt: null });
    const awaiting = await seedService(platform, { userId: uid as number, nextDueAt: null });
    await sql(`UPDATE services SET status = 'provisioning', provisioning_stage = 'create', stage_changed_at = now() - interval '2 hours' WHERE id = $1`, [stuck]);
    await sql(`UPDATE services SET status = 'failed', provisioning_stage = 'awaiting_admin', stage_changed_at = now() - interval '2 hours' WHERE id = $1`, [awaiting]);
    void active;

    const res = await platform.api.get('/api/v2/admin/dashboard', { token });
    expect(res.body.data.today).toMatchObject({ revenue: '120.10', recharge: '50.00', refunds: '10.05', net_revenue: '110.05', paid_invoices: 6, new_users: 1, new_services: 3 });
    expect(res.body.data.state).toMatchObject({ active_services: 1, provisioning_stuck: 1, provisioning_awaiting_admin: 1, renewals_due: 1 });
    expect(res.body.data.range).toBeNull();

    const { today } = shanghaiToday();
    const from = shanghaiToday(new Date(Date.now() - 45 * 86_400_000)).today;
    const ranged = await platform.api.get('/api/v2/admin/dashboard', { token, query: { date_from: from, date_to: today } });
    expect(ranged.body.data.range).toMatchObject({ revenue: '127.10', paid_invoices: 7 });

    const series = await platform.api.get('/api/v2/admin/dashboard/revenue-series', { token, query: { date_from: from, date_to: today } });
    const points = series.body.data.points as Array<{ date: string; revenue: string; refunds: string }>;
    expect(points).toHaveLength(46);
    expect(points.at(-1)).toMatchObject({ date: today, revenue: '120.10', refunds: '10.05' });
    expect(points.filter((p) => p.revenue !== '0.00')).toHaveLength(2);

    // failing_tasks: a task whose last settled run of the last 7 days failed (a running one is not settled; a tie goes to the later id).
    const runs: Array<[string, string, string]> = [
      ['t.a', 'succeeded', "now() - interval '2 hours'"], ['t.a', 'failed', "now() - interval '1 hour'"],
      ['t.b', 'failed', "now() - interval '2 hours'"], ['t.b', 'succeeded', "now() - interval '1 hour'"],
      ['t.c', 'failed', "now() - interval '8 days'"],
      ['t.d', 'failed', "now() - interval '2 hours'"], ['t.d', 'running', "now() - interval '1 minute'"],
      ['t.e', 'succeeded', "date_trunc('second', now()) - interval '1 hour'"], ['t.e', 'failed', "date_trunc('second', now()) - interval '1 hour'"],
      ['t.f', 'failed', "date_trunc('second', now()) - interval '1 hour'"], ['t.f', 'succeeded', "date_trunc('second', now()) - interval '1 hour'"],
    ];
    for (const [i, [key, status, at]] of runs.entries()) {
      await sql(
        `INSERT INTO task_runs (task_key, trigger, workflow_id, run_id, status, started_at, finished_at)
         VALUES ($1, 'schedule', $2, 'r', $3, ${at}, ${status === 'running' ? 'NULL' : at})`,
        [key, `w${i}`, status],
      );
    }
    const withRuns = await platform.api.get('/api/v2/admin/dashboard', { token });
    expect(withRuns.body.data.state.schedules).toMatchObject({ failing_tasks: 3 });

    expectError(await platform.api.get('/api/v2/admin/dashboard', { token, query: { date_from: today } }), 42200, 422);
    expectError(await platform.api.get('/api/v2/admin/dashboard', { token, query: { date_from: '2026-02-30', date_to: today } }), 42200, 422);
    expectError(await platform.api.get('/api/v2/admin/dashboard/revenue-series', { token, query: { date_from: '2020-01-01', date_to: '2026-01-01' } }), 42200, 422);
    expectError(await platform.api.get('/api/v2/admin/dashboard/revenue-series', { token, query: { date_from: today, date_to: from } }), 42200, 422);
  });
});

describe('/metrics', () => {
  it('refuses a caller without the token and exposes the named series to one with it', async () => {
    await platform.api.get('/api/v2/admin/users', { token });
    const refused = await fetch(`${platform.baseUrl}/metrics`);
    expect(refused.status).toBe(401);
    const wrong = await fetch(`${platform.baseUrl}/metrics`, { headers: { authorization: 'Bearer not-the-token-at-all-000000' } });
    expect(wrong.status).toBe(401);
    const res = await fetch(`${platform.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/api\/v2\/admin\/users",status="200",code="0"\} \d+/);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/api\/v2\/admin\/users"\}/);
    expect(text).toMatch(/db_pool_connections\{pool="api",state="max"\} 5/);
    expect(text).toMatch(/cache_lookups_total\{cache="principal",result="(hit|miss)"\}/);
    for (const series of ['payments_settled_total', 'refunds_total', 'provisionings_total', 'upstream_calls_total', 'plugin_invocations_total', 'schedule_runs_total']) {
      expect(text).toContain(`# TYPE ${series} counter`);
    }
    // A concrete path never becomes a label.
    await fetch(`${platform.baseUrl}/api/v2/admin/users/31337`, { headers: { authorization: `Bearer ${token}` } });
    const again = await (await fetch(`${platform.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(again).not.toContain('31337');
    expect(again).toContain('route="/api/v2/admin/users/{user}"');
  });

  it('is not served on the API port without a token', async () => {
    const plain = await startTestPlatform();
    try {
      expect((await fetch(`${plain.baseUrl}/metrics`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

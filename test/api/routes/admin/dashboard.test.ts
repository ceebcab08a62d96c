import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { shanghaiToday, STUCK_COUNT_SQL, STUCK_MINUTES } from '../../../../domain/dashboard/figures.js';
import { AWAITING_FUNDS_COUNT_SQL } from '../../../../domain/economics/funds.js';
import { foldDashboardFigures } from '../../../../domain/dashboard/kept.js';
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

describe('the kept figures (migration 0044)', () => {
  /** What the delta rows say, groups that sum to nothing left out. */
  const kept = async () => ({
    services: await sql<{ status: string; n: number }>(
      `SELECT status, sum(delta)::int AS n FROM service_status_deltas GROUP BY status HAVING sum(delta) <> 0 ORDER BY status`,
    ),
    tickets: await sql<{ status: string; n: number }>(
      `SELECT status, sum(delta)::int AS n FROM ticket_status_deltas GROUP BY status HAVING sum(delta) <> 0 ORDER BY status`,
    ),
    money: await sql<{ day: string; source: string; type: string; amount: string; n: number }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, source, type, sum(amount)::numeric(14,2)::text AS amount, sum(n)::int AS n
         FROM daily_money_deltas GROUP BY day, source, type HAVING sum(n) <> 0 OR sum(amount) <> 0 ORDER BY 1, 2, 3`,
    ),
  });
  /** The same figures counted from the rows themselves. */
  const truth = async () => ({
    services: await sql<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM services GROUP BY status ORDER BY status`),
    tickets: await sql<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM tickets GROUP BY status ORDER BY status`),
    money: await sql<{ day: string; source: string; type: string; amount: string; n: number }>(
      `SELECT * FROM (
         SELECT to_char((paid_at AT TIME ZONE 'Asia/Shanghai')::date, 'YYYY-MM-DD') AS day, 'invoice' AS source, type::text AS type,
                sum(amount)::numeric(14,2)::text AS amount, count(*)::int AS n
           FROM invoices WHERE status IN ('paid', 'partially_refunded', 'refunded') AND paid_at IS NOT NULL GROUP BY 1, 3
         UNION ALL
         SELECT to_char((refunded_at AT TIME ZONE 'Asia/Shanghai')::date, 'YYYY-MM-DD'), 'refund', '', sum(amount)::numeric(14,2)::text, count(*)::int
           FROM refunds WHERE status = 'succeeded' AND refunded_at IS NOT NULL GROUP BY 1) t ORDER BY 1, 2, 3`,
    ),
  });
  const sequelize = () => platform.deps.db.sequelize;

  it('include every commit at once and stay exact under concurrent writers and folds', async () => {
    const [user] = await sql<{ id: number }>(`INSERT INTO users (email, nickname, password_hash) VALUES ('kept@example.com', 'k', 'x') RETURNING id`);
    const uid = user!.id;
    const [department] = await sql<{ id: number }>(`INSERT INTO ticket_departments (name) VALUES ('看板工单') RETURNING id`);
    const services: number[] = [];
    for (let i = 0; i < 8; i += 1) services.push(await seedService(platform, { userId: uid, nextDueAt: null }));
    expect(await kept()).toEqual(await truth());

    // A commit is in the next read; a rollback never is.
    const before = (await platform.api.get('/api/v2/admin/dashboard', { token })).body.data.state.active_services as number;
    await sql(`UPDATE services SET status = 'suspended' WHERE id = $1`, [services[0]]);
    expect((await platform.api.get('/api/v2/admin/dashboard', { token })).body.data.state.active_services).toBe(before - 1);
    await sequelize()
      .transaction(async (transaction) => {
        await sequelize().query(`UPDATE services SET status = 'terminated' WHERE id = $1`, { bind: [services[1]], transaction });
        throw new Error('rolled back');
      })
      .catch(() => {});
    expect((await platform.api.get('/api/v2/admin/dashboard', { token })).body.data.state.active_services).toBe(before - 1);

    // Writers in parallel, each in its transaction: a service's status moves, an invoice is
    // paid (some on other days), another refunded, a refund succeeds; folds run among them.
    const writer = (i: number) =>
      sequelize().transaction(async (transaction) => {
        const q = (text: string, bind: unknown[] = []) => sequelize().query(text, { bind, transaction, type: QueryTypes.SELECT });
        await q(`UPDATE services SET status = $2 WHERE id = $1 RETURNING id`, [services[2 + (i % 6)], ['suspended', 'active', 'terminated'][i % 3]]);
        const [ticket] = await q(
          `INSERT INTO tickets (user_id, department_id, subject, priority) VALUES ($1, $2, 'k', 'normal') RETURNING id`,
          [uid, department!.id],
        );
        if (i % 4 === 0) await q(`UPDATE tickets SET status = 'answered' WHERE id = $1 RETURNING id`, [(ticket as { id: number }).id]);
        if (i % 4 === 2) await q(`UPDATE tickets SET status = 'closed', closed_at = now(), closed_by = 'staff' WHERE id = $1 RETURNING id`, [(ticket as { id: number }).id]);
        if (i % 5 === 0) await q(`DELETE FROM tickets WHERE id = $1 RETURNING id`, [(ticket as { id: number }).id]);
        const [paid] = await q(
          `INSERT INTO invoices (user_id, type, status, subject, amount, balance_amount, payment_channel, paid_at, operator_type)
           VALUES ($1, $2, 'unpaid', 'k', $3, 0, NULL, NULL, 'admin') RETURNING id`,
          [uid, i % 2 === 0 ? 'purchase' : 'recharge', `${10 + i}.25`],
        );
        const paidId = (paid as { id: number }).id;
        await q(`UPDATE invoices SET status = 'paid', balance_amount = amount, payment_channel = 'balance', paid_at = now() - make_interval(days => $2) WHERE id = $1 RETURNING id`, [paidId, i % 4]);
        if (i % 3 === 0) await q(`UPDATE invoices SET status = 'refunded', refunded_amount = amount WHERE id = $1 RETURNING id`, [paidId]);
        const [refund] = await q(
          `INSERT INTO refunds (user_id, invoice_id, amount, balance_part, third_party_part, refund_method, status, operator_type)
           VALUES ($1, $2, 1.50, 1.50, 0, 'balance', 'processing', 'admin') RETURNING id`,
          [uid, paidId],
        );
        await q(`SELECT pg_sleep(0.01)`);
        const [red] = await q(
          `INSERT INTO invoices (user_id, type, status, subject, amount, balance_amount, payment_channel, paid_at, origin_invoice_id, operator_type)
           VALUES ($1, 'refund', 'paid', '退款', -1.50, -1.50, 'balance', now(), $2, 'admin') RETURNING id`,
          [uid, paidId],
        );
        await q(`UPDATE refunds SET status = 'succeeded', refunded_at = now(), refund_invoice_id = $2 WHERE id = $1 RETURNING id`, [
          (refund as { id: number }).id,
          (red as { id: number }).id,
        ]);
      });
    const results = await Promise.allSettled([
      ...Array.from({ length: 24 }, (_, i) => writer(i)),
      ...Array.from({ length: 4 }, () => foldDashboardFigures(platform.deps)),
    ]);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(await kept()).toEqual(await truth());

    // A fold leaves one row per group and changes no figure.
    const figures = (await platform.api.get('/api/v2/admin/dashboard', { token })).body.data;
    await foldDashboardFigures(platform.deps);
    const [groups] = await sql<{ rows: number; keys: number }>(
      `SELECT count(*)::int AS rows, count(DISTINCT (day, source, type))::int AS keys FROM daily_money_deltas`,
    );
    expect(groups!.rows).toBe(groups!.keys);
    const [statuses] = await sql<{ rows: number; keys: number }>(`SELECT count(*)::int AS rows, count(DISTINCT status)::int AS keys FROM service_status_deltas`);
    expect(statuses!.rows).toBe(statuses!.keys);
    const [ticketStatuses] = await sql<{ rows: number; keys: number }>(`SELECT count(*)::int AS rows, count(DISTINCT status)::int AS keys FROM ticket_status_deltas`);
    expect(ticketStatuses!.rows).toBe(ticketStatuses!.keys);
    expect(await kept()).toEqual(await truth());
    const after = (await platform.api.get('/api/v2/admin/dashboard', { token })).body.data;
    expect(after.today).toEqual(figures.today);
    expect(after.month).toEqual(figures.month);
    expect(after.state.active_services).toBe(figures.state.active_services);
    expect(after.state.active_services).toBe((await truth()).services.find((s) => s.status === 'active')?.n ?? 0);
    const open = (await truth()).tickets.filter((t) => t.status === 'open' || t.status === 'customer_reply').reduce((n, t) => n + t.n, 0);
    expect(after.state.extras.open_tickets).toBe(open);
    expect(open).toBeGreaterThan(0);
  });
});

describe('the stuck provisionings count', () => {
  it('can be read from services_unfinished_since_idx alone, and the awaiting counts do not take that index', async () => {
    const sequelize = platform.deps.db.sequelize;
    const planOf = (text: string, bind: unknown[]) =>
      sequelize.transaction(async (transaction) => {
        // The test database is small: the planner would rightly scan it; ask for the index path it has.
        await sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
        const rows = await sequelize.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, { bind, transaction, type: QueryTypes.SELECT });
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    const stuck = await planOf(STUCK_COUNT_SQL, [STUCK_MINUTES]);
    expect(stuck).toContain('Index Only Scan using services_unfinished_since_idx');
    expect(await planOf(AWAITING_FUNDS_COUNT_SQL, [])).not.toContain('services_unfinished_since_idx');
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

import pg from 'pg';
import { captureQueries, planNodes, type PlanNode } from '../../../bench/lib/query-plans.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { LOG_LIST_WINDOW } from '../../../lib/paging.js';
import { expectError } from '../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

/**
 * The log lists at volume (issue 35; docs/operations.md "Log tables at volume"): a realistic
 * number of rows made by set-based SQL, then every list route called through HTTP with each of
 * its filters while the statements it sends are captured (pg's `Client.query`, in this process:
 * the API runs here), and each statement's plan (`EXPLAIN (FORMAT JSON)`, the same values) is
 * read: no sequential scan of a log table holding more than a few thousand rows, and a day range
 * reads only the month partitions it covers.
 */

let platform: TestPlatform;
let token: string;
let explainer: pg.Client;

const LOG_TABLES = /\b(api_request_logs|plugin_runtime_logs|task_runs|notification_log|admin_audit_logs)\b/;
const BIG = 5000;

type Query = Record<string, string | number>;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
  explainer = new pg.Client({ connectionString: platform.deps.config.databaseUrl });
  await explainer.connect();
  await generateVolume();
}, 600_000);

afterAll(async () => {
  await explainer?.end();
  await platform?.close();
});

async function sql<T extends object>(text: string, bind: unknown[] = []): Promise<T[]> {
  return platform.deps.db.sequelize.query<T>(text, { bind, type: QueryTypes.SELECT });
}

const ROUTES = ['/api/v2/client/services', '/api/v2/client/services/{id}', '/api/v2/client/invoices', '/api/v2/client/invoices/{id}', '/api/v2/admin/users', '/api/v2/admin/users/{user}', '/api/v2/auth/login', '/api/v2/client/tickets', 'unmatched', '/api/v2/admin/logs/api-logs'];

/** 200,000 request-log rows over 90 days, 100,000 plugin runtime log rows, 50,000 task runs and notices, 20,000 audit rows; then ANALYZE. */
async function generateVolume() {
  const [user] = await sql<{ id: number }>(`INSERT INTO users (email, password_hash, status) VALUES ('volume@example.com', 'x', 'active') RETURNING id`);
  await sql(
    `INSERT INTO api_request_logs (method, route, status, code, duration_ms, user_id, admin_id, ip, request_id, created_at)
     SELECT (ARRAY['GET','GET','GET','POST','PUT','DELETE'])[1 + g % 6], ($1::text[])[1 + (g * 7919) % 10],
            CASE WHEN g % 97 = 0 THEN 500 WHEN g % 13 = 0 THEN 404 ELSE 200 END,
            CASE WHEN g % 97 = 0 THEN 50000 WHEN g % 13 = 0 THEN 40400 ELSE 0 END,
            (g * 31) % 400 + CASE WHEN g % 1000 = 0 THEN 5000 ELSE 0 END,
            CASE WHEN g % 10 < 7 THEN 1 + (g * 104729) % 5000 END, CASE WHEN g % 20 = 7 THEN 1 + g % 10 END,
            '10.' || g % 200 || '.' || g / 200 % 250 || '.1', md5(g::text), now() - interval '90 days' * (g::float8 / 200000)
       FROM generate_series(1::bigint, 200000) g`,
    [ROUTES],
  );
  await sql(
    `INSERT INTO plugin_runtime_logs (domain, plugin_slug, actor_type, action, status, duration_ms, message, created_at)
     SELECT (ARRAY['payment','notification','server','addons'])[1 + g % 4], 'p' || g % 7, 'system', (ARRAY['charge','notify','create','hook:tick.daily','health_check'])[1 + g % 5],
            CASE WHEN g % 50 = 0 THEN 'failure' WHEN g % 333 = 0 THEN 'timeout' ELSE 'success' END, g % 900, '', now() - interval '90 days' * (g::float8 / 100000)
       FROM generate_series(1, 100000) g`,
  );
  await sql(
    `INSERT INTO task_runs (task_key, task_title, trigger, workflow_id, run_id, status, started_at, finished_at, plugin_slug)
     SELECT 'task.' || g % 20, 't', CASE WHEN g % 30 = 0 THEN 'manual' ELSE 'schedule' END, 'task:' || g % 20, 'run-' || g,
            CASE WHEN g % 40 = 0 THEN 'failed' ELSE 'succeeded' END, now() - interval '90 days' * (g::float8 / 50000), now() - interval '90 days' * (g::float8 / 50000),
            CASE WHEN g % 25 = 0 THEN 'plug' END
       FROM generate_series(1, 50000) g`,
  );
  await sql(
    `INSERT INTO notification_log (kind, channel, entity_type, entity_id, occasion, user_id, recipient, status, sent_at, created_at)
     SELECT (ARRAY['renewal_due','invoice_unpaid','service_overdue'])[1 + g % 3], CASE WHEN g % 2 = 0 THEN 'mail' ELSE 'sms' END, 'service', g, 'o', $1,
            '138****0000', CASE WHEN g % 30 = 0 THEN 'failed' ELSE 'sent' END, CASE WHEN g % 30 = 0 THEN NULL ELSE now() END, now() - interval '90 days' * (g::float8 / 50000)
       FROM generate_series(1, 50000) g`,
    [user?.id],
  );
  await sql(
    `INSERT INTO admin_audit_logs (source, admin_id, admin_name, method, route, status, code, target_type, target_id, action, request_id, created_at)
     SELECT 'request', 1 + g % 5, 'root', (ARRAY['POST','PUT','DELETE'])[1 + g % 3], ($1::text[])[1 + g % 10], CASE WHEN g % 20 = 0 THEN 422 ELSE 200 END, 0,
            'user', (g % 3000)::text, 'update', 'req-' || g, now() - interval '90 days' * (g::float8 / 20000)
       FROM generate_series(1, 20000) g`,
    [ROUTES],
  );
  await sql('ANALYZE api_request_logs, plugin_runtime_logs, task_runs, notification_log, admin_audit_logs');
}


async function rowEstimates(): Promise<Map<string, number>> {
  const rows = await sql<{ relname: string; reltuples: number }>(`SELECT relname, reltuples::float8 AS reltuples FROM pg_class WHERE relkind IN ('r', 'p')`);
  return new Map(rows.map((r) => [r.relname, Number(r.reltuples)]));
}

/** Calls the route, answers the plans of the log statements it sent (at least one). */
async function plansOf(path: string, query: Query = {}) {
  // The statements on a log table the API sent for this request (bench/lib/query-plans.ts).
  const { result: res, queries } = await captureQueries(() => platform.api.get(path, { token, query }));
  const statements = queries.filter((q) => /^\s*SELECT/i.test(q.text) && LOG_TABLES.test(q.text));
  expect(res.body.code, `${path} ${JSON.stringify(query)}: ${res.body.message}`).toBe(0);
  expect(statements.length, `${path} sent no statement on a log table`).toBeGreaterThan(0);
  const plans: Array<{ text: string; nodes: PlanNode[] }> = [];
  for (const s of statements) {
    const explained = await explainer.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${s.text}`, s.values);
    const root = explained.rows[0]?.['QUERY PLAN'][0]?.Plan as PlanNode;
    plans.push({ text: s.text, nodes: planNodes(root) });
  }
  return { res, plans };
}

async function expectNoBigSeqScan(path: string, query: Query = {}) {
  const estimates = await rowEstimates();
  const { res, plans } = await plansOf(path, query);
  for (const plan of plans) {
    const seq = plan.nodes.filter((n) => n['Node Type'] === 'Seq Scan' && LOG_TABLES.test(n['Relation Name'] ?? '') && (estimates.get(n['Relation Name'] ?? '') ?? 0) > BIG);
    expect(seq.map((n) => n['Relation Name']), `${path} ${JSON.stringify(query)}: ${plan.text}`).toEqual([]);
  }
  return { res, plans };
}

/** The 15th of last month, Asia/Shanghai: a day well inside one month partition. */
function midLastMonth(): string {
  const now = new Date(Date.now() + 8 * 3_600_000);
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15));
  return d.toISOString().slice(0, 10);
}

describe('the log lists at volume read by index', () => {
  it('the request log: page 1, the last page of the window, every filter and the keyword', async () => {
    const path = '/api/v2/admin/logs/api-logs';
    const [sample] = await sql<{ request_id: string; ip: string }>(`SELECT request_id, ip FROM api_request_logs WHERE route = '/api/v2/admin/users' ORDER BY created_at DESC LIMIT 1`);
    for (const query of <Query[]>[
      {},
      { page: LOG_LIST_WINDOW / 100, page_size: 100 },
      { method: 'DELETE' },
      { route: '/api/v2/auth/login' },
      { status: 500 },
      { code: 40400 },
      { user_id: 41 },
      { admin_id: 8 },
      { request_id: sample?.request_id ?? '' },
      { ip: sample?.ip ?? '' },
      { min_duration_ms: 5000 },
      { keyword: 'invoices' },
      { keyword: 'INVOICES', status: 500 },
      { date_from: midLastMonth(), date_to: midLastMonth() },
    ]) {
      await expectNoBigSeqScan(path, query);
    }
  });

  it('a day range reads only its month partition', async () => {
    const day = midLastMonth();
    const { res, plans } = await plansOf('/api/v2/admin/logs/api-logs', { date_from: day, date_to: day });
    expect(res.body.data.total).toBeGreaterThan(0);
    const partitions = await sql<{ name: string }>(`SELECT name FROM log_partitions('api_request_logs')`);
    expect(partitions.length).toBeGreaterThan(3);
    for (const plan of plans) {
      const read = new Set(plan.nodes.map((n) => n['Relation Name']).filter((r): r is string => !!r && r.startsWith('api_request_logs_p')));
      expect([...read], plan.text).toEqual([`api_request_logs_p${day.slice(0, 7).replace('-', '')}`]);
    }
  });

  it('the admin audit, its filters and detail', async () => {
    const [row] = await sql<{ id: string }>(`SELECT id::text AS id FROM admin_audit_logs ORDER BY id DESC LIMIT 1`);
    for (const query of <Query[]>[{}, { admin_id: 2 }, { method: 'DELETE' }, { route: '/api/v2/admin/users' }, { target_type: 'user', target_id: '7' }, { request_id: 'req-77' }, { source: 'catalogue' }]) {
      await expectNoBigSeqScan('/api/v2/admin/audit-logs', query);
    }
    await expectNoBigSeqScan(`/api/v2/admin/audit-logs/${row?.id}`);
  });

  it('the plugin runtime log, its filters and detail', async () => {
    const path = '/api/v2/admin/integration-plugins/runtime-logs';
    for (const query of <Query[]>[{}, { domain: 'payment' }, { status: 'timeout' }, { action: 'hook:tick.daily' }, { plugin_id: 1 }]) {
      await expectNoBigSeqScan(path, query);
    }
    const [row] = await sql<{ id: string }>(`SELECT id::text AS id FROM plugin_runtime_logs ORDER BY created_at DESC LIMIT 1 OFFSET 500`);
    const { res } = await expectNoBigSeqScan(`${path}/${row?.id}`);
    expect(res.body.data.id).toBe(Number(row?.id));
  });

  it('task runs (schedules and the task log), notification, SMS and mail logs', async () => {
    for (const path of ['/api/v2/admin/schedules/task-runs', '/api/v2/admin/logs/task-logs']) {
      for (const query of <Query[]>[{}, { task_key: 'task.7' }, { status: 'failed' }, { trigger: 'manual' }, { plugin_slug: 'plug' }]) await expectNoBigSeqScan(path, query);
    }
    const [run] = await sql<{ id: number }>(`SELECT id FROM task_runs ORDER BY id DESC LIMIT 1`);
    await expectNoBigSeqScan(`/api/v2/admin/schedules/task-runs/${run?.id}`);
    for (const query of <Query[]>[{}, { kind: 'invoice_unpaid' }, { channel: 'sms' }, { status: 'failed' }, { entity_type: 'service', entity_id: 77 }]) {
      await expectNoBigSeqScan('/api/v2/admin/logs/notification-logs', query);
    }
    for (const path of ['/api/v2/admin/logs/sms-logs', '/api/v2/admin/logs/mail-logs']) {
      for (const query of <Query[]>[{}, { scene: 'renewal_due' }, { status: 'failed' }, { date_from: midLastMonth(), date_to: midLastMonth() }]) await expectNoBigSeqScan(path, query);
    }
  });
});

describe('total and deep pages of a log list', () => {
  it('counts up to the window, exactly below it, and refuses pages past it in Chinese', async () => {
    const path = '/api/v2/admin/logs/api-logs';
    const all = await platform.api.get(path, { token });
    expect(all.body.data).toMatchObject({ total: LOG_LIST_WINDOW, page: 1, page_size: 20 });
    expect(all.body.data.list).toHaveLength(20);
    const times = all.body.data.list.map((r: { created_at: string }) => r.created_at);
    expect([...times].sort().reverse()).toEqual(times);

    const [exact] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM api_request_logs WHERE duration_ms >= 5000`);
    expect(exact?.n).toBeGreaterThan(0);
    expect(exact?.n).toBeLessThan(LOG_LIST_WINDOW);
    expect((await platform.api.get(path, { token, query: { min_duration_ms: 5000 } })).body.data.total).toBe(exact?.n);

    const last = await platform.api.get(path, { token, query: { page: LOG_LIST_WINDOW / 100, page_size: 100 } });
    expect(last.body.data.list).toHaveLength(100);
    const past = await platform.api.get(path, { token, query: { page: LOG_LIST_WINDOW / 100 + 1, page_size: 100 } });
    expectError(past, 42200, 422);
    expect(past.body.data.errors.page).toEqual([`只能翻阅前 ${LOG_LIST_WINDOW} 条记录（每页 100 条时至多第 ${LOG_LIST_WINDOW / 100} 页），请缩小筛选范围`]);
    expectError(await platform.api.get('/api/v2/admin/audit-logs', { token, query: { page: LOG_LIST_WINDOW + 1, page_size: 1 } }), 42200, 422);
    expectError(await platform.api.get('/api/v2/admin/users/1/logs', { token, query: { type: 'api', page: LOG_LIST_WINDOW / 100 + 1, page_size: 100 } }), 42200, 422);

    const keyword = await platform.api.get(path, { token, query: { keyword: 'INVOICES', status: 500 } });
    const [matching] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM api_request_logs WHERE status = 500 AND route ILIKE '%invoices%'`);
    expect(keyword.body.data.total).toBe(matching?.n);
    expect(keyword.body.data.list.every((r: { route: string }) => r.route.includes('invoices'))).toBe(true);
  });
});

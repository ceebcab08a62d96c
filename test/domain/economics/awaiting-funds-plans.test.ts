import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AWAITING_FUNDS_INDEX } from '../../../db/migrations/0038-awaiting-funds-index.js';
import { watchFactGauges } from '../../../domain/economics/fact-gauges.js';
import { listSupplierFunds } from '../../../domain/economics/funds.js';
import { metricsRegistry } from '../../../lib/metrics.js';
import { captureStatements, explainQueries, indexReadsOf, seqScansOf } from '../../helpers/query-plans.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

/**
 * The reads of the work waiting for upstream funds (the dashboard's `upstream_funds_waiting`, the
 * `upstream_work_awaiting_funds` gauge at every scrape, the funds list's count per supplier) on
 * tables of a few hundred thousand rows, of which a handful wait: `service_orders` is read through
 * its partial index of the waiting orders (migration 0038; before it, through
 * `service_orders_one_open`, every open order), `services` through the stage index
 * (`services_stage_order_idx`), and neither sequentially. The rows are written with foreign keys
 * off (they name no real invoice, user or product) and consistent with every CHECK.
 */
const ROWS = 200_000;
const WAITING = 40;
/** Open orders at another stage: what `service_orders_one_open` (every open order) would read too. */
const OPEN_ELSEWHERE = 2_000;
const TABLES = ['service_orders', 'services', 'service_upstream_bindings'];

let platform: TestPlatform;
let db: pg.Client;

beforeAll(async () => {
  platform = await startTestPlatform();
  db = new pg.Client({ connectionString: platform.env.DATABASE_URL });
  await db.connect();
  const supplier = await db.query<{ id: number }>(
    `INSERT INTO suppliers (code, name, interface_type, base_url, account) VALUES ('funds-plan', '计划供应商', 'upstream_finance_api', 'https://upstream.example.com', 'acct') RETURNING id`,
  );
  const supplierId = supplier.rows[0]!.id;
  await db.query('BEGIN');
  await db.query('SET LOCAL session_replication_role = replica');
  // Services: every WAITING-th of the first WAITING × 1000 waits for funds, the rest are active.
  await db.query(
    `INSERT INTO services (id, user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, price, product_name, provisioning_stage)
     SELECT 1000000 + g, 1, 1, 1, 1000000 + g, 1, CASE WHEN g % 1000 = 0 AND g <= $2 * 1000 THEN 'provisioning' ELSE 'active' END,
            'cloud_server', 'monthly', 10, '计划', CASE WHEN g % 1000 = 0 AND g <= $2 * 1000 THEN 'awaiting_upstream_funds' ELSE 'done' END
       FROM generate_series(1, $1::int) g`,
    [ROWS, WAITING],
  );
  await db.query(
    `INSERT INTO service_upstream_bindings (service_id, product_id, supplier_id, provider_key, upstream_product_id, upstream_host_id)
     SELECT 1000000 + g, 1, $2, 'p', '1', g FROM generate_series(1, $1::int) g`,
    [ROWS, supplierId],
  );
  // Service orders: WAITING renewals waiting for funds, OPEN_ELSEWHERE buying upstream, the rest long done.
  await db.query(
    `INSERT INTO service_orders (invoice_id, service_id, user_id, kind, billing_period, months, amount, supplier_id, upstream_host_id,
        upstream_invoice_id, upstream_paid_at, status, stage, completed_at, workflow_id)
     SELECT 2000000 + g, 1000000 + g, 1, 'renew', 'monthly', 1, 10, $4, g,
            CASE WHEN g <= $3 THEN NULL ELSE g END, CASE WHEN g <= $3 THEN NULL ELSE now() END,
            CASE WHEN g <= $3 THEN 'processing' ELSE 'succeeded' END,
            CASE WHEN g <= $2 THEN 'awaiting_upstream_funds' WHEN g <= $3 THEN 'upstream_renew' ELSE 'done' END,
            CASE WHEN g <= $3 THEN NULL ELSE now() END, 'renew:plan-' || g
       FROM generate_series(1, $1::int) g`,
    [ROWS, WAITING, WAITING + OPEN_ELSEWHERE, supplierId],
  );
  await db.query('COMMIT');
  await db.query('ANALYZE services; ANALYZE service_upstream_bindings; ANALYZE service_orders');
}, 300_000);

afterAll(async () => {
  await db?.end();
  await platform?.close();
});

async function plansOf(work: () => Promise<unknown>) {
  const { queries } = await captureStatements(work);
  return explainQueries(platform.deps, queries.filter((q) => /\bservice_orders\b/.test(q.text)));
}

describe('the work waiting for upstream funds, read at size', () => {
  it('is counted through the partial index of waiting orders and the stage index of services, by the gauge, the dashboard and the funds list', async () => {
    const unwatch = watchFactGauges(platform.deps);
    const token = await platform.rootToken();
    try {
      const readers: Array<[string, () => Promise<unknown>]> = [
        ['gauge', async () => expect((await metricsRegistry.getSingleMetric('upstream_work_awaiting_funds')?.get())?.values[0]?.value).toBe(2 * WAITING)],
        ['dashboard', async () => expect((await platform.api.get('/api/v2/admin/dashboard', { token })).body.data.state.extras.upstream_funds_waiting).toBe(2 * WAITING)],
        ['funds list', async () => expect((await listSupplierFunds(platform.deps, { page: 1, page_size: 20 })).rows.find((r) => r.awaiting_funds > 0)?.awaiting_funds).toBe(2 * WAITING)],
      ];
      for (const [reader, read] of readers) {
        const plans = await plansOf(read);
        expect(plans.length, reader).toBeGreaterThan(0);
        expect(seqScansOf(plans, TABLES), reader).toEqual([]);
        const reads = indexReadsOf(plans);
        expect(reads.some((r) => r.startsWith(AWAITING_FUNDS_INDEX.name)), `${reader}: ${reads.join('; ')}`).toBe(true);
        expect(reads.some((r) => r.startsWith('services_stage_order_idx')), `${reader}: ${reads.join('; ')}`).toBe(true);
      }
    } finally {
      unwatch();
    }
  });
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { autoRenewServices } from '../../../domain/lifecycle/auto-renew-services.js';
import { createDueRenewalInvoices } from '../../../domain/lifecycle/create-renewal-invoices.js';
import { runTask } from '../../../domain/tasks/run-task.js';
import { adjustBalance } from '../../helpers/billing.js';
import { createUser, daysFromNow, seedService } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { captureStatements, explainQueries, expectIndexedOnly, indexReadsOf, seqScansOf } from '../../helpers/query-plans.js';

/**
 * The renewal and invoice tasks at the size of a reseller's third year: 100,000 services (most
 * due months ahead, some ended) and 100,000 invoices of history, against a handful due. Each
 * task's statements read `services` and `invoices` through indexes only, each changes exactly
 * the due rows, and its second run finds nothing.
 */

let platform: TestPlatform;
let payer: { id: number };
const LARGE = ['services', 'invoices'] as const;

const run = (taskKey: string) => () => runTask(platform.deps, { taskRunId: null as unknown as number, taskKey, trigger: 'manual', slotAt: null });

async function idsNamed(name: string): Promise<number[]> {
  return (await sqlRows<{ id: number }>(platform.deps, 'SELECT id FROM services WHERE product_name = $1 ORDER BY id', [name])).map((r) => r.id);
}

beforeAll(async () => {
  platform = await startTestPlatform();
  const deps = platform.deps;
  payer = await createUser(platform);
  await adjustBalance(platform, payer.id, '1000.00');
  const template = await seedService(platform, { userId: payer.id, nextDueAt: daysFromNow(200) });
  await sqlRows(deps, `INSERT INTO users (email, password_hash) SELECT 'bulk-' || g || '@example.com', 'x' FROM generate_series(1, 1000) g RETURNING id`, []);
  const users = `(SELECT array_agg(id ORDER BY id) AS ids FROM users WHERE email LIKE 'bulk-%')`;
  const t = `(SELECT product_id, order_id, invoice_id FROM services WHERE id = ${Number(template)}) t`;
  // 100,000 services of other users: 90% active and due 30 to 365 days ahead, 5% terminated, 5% cancelled.
  await sqlRows(
    deps,
    `INSERT INTO services (user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, price, next_due_at, product_name, activated_at, terminated_at, cancelled_at, updated_at)
     SELECT u.ids[1 + g % 1000], t.product_id, t.order_id, t.invoice_id, g + 1,
            CASE WHEN g % 20 = 0 THEN 'terminated' WHEN g % 20 = 1 THEN 'cancelled' ELSE 'active' END, 'cloud_server', 'monthly', 30,
            CASE WHEN g % 20 IN (0, 1) THEN now() - (g % 700) * interval '1 day' ELSE now() + (30 + g % 335) * interval '1 day' END,
            '历史服务', now() - interval '400 days',
            CASE WHEN g % 20 = 0 THEN now() - (g % 700) * interval '1 day' END, CASE WHEN g % 20 = 1 THEN now() - (g % 700) * interval '1 day' END, now() - interval '1 day'
       FROM generate_series(1, 100000) g, ${users} u, ${t}`,
    [],
  );
  // The payer's due services (same product, so they can be priced and renewed):
  // 10 auto-renewing and 10 not, due in 3 days; 5 active 5 days past due; 4 suspended for non-payment and renewed
  // meanwhile (due in 20 days); 3 suspended for non-payment 10 days ago and still 12 days past due.
  const due = (name: string, n: number, status: string, next: string, extra: { autoRenew?: boolean; suspendedDaysAgo?: number } = {}) =>
    sqlRows(
      deps,
      `INSERT INTO services (user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, price, next_due_at, product_name, auto_renew,
                             activated_at, suspended_at, suspend_reason)
       SELECT $1, t.product_id, t.order_id, t.invoice_id, 200000 + (SELECT count(*) FROM services) + g, $2, 'cloud_server', 'monthly', 30, now() + $3::interval, $4, $5,
              now() - interval '60 days', CASE WHEN $6::int IS NOT NULL THEN now() - make_interval(days => $6::int) END, CASE WHEN $6::int IS NOT NULL THEN 'overdue' END
         FROM generate_series(1, $7::int) g, ${t} RETURNING id`,
      [payer.id, status, next, name, extra.autoRenew ?? false, extra.suspendedDaysAgo ?? null, n],
    );
  await due('续费-自动', 10, 'active', '3 days', { autoRenew: true });
  await due('续费-手动', 10, 'active', '3 days');
  await due('逾期', 5, 'active', '-5 days');
  await due('已续费', 4, 'suspended', '20 days', { suspendedDaysAgo: 2 });
  await due('待终止', 3, 'suspended', '-12 days', { suspendedDaysAgo: 10 });
  // 100,000 paid invoices of history, 2,000 unpaid purchases of the last days (not stale), 15 unpaid purchases 8 days old (stale).
  await sqlRows(
    deps,
    `INSERT INTO invoices (user_id, type, status, subject, amount, balance_amount, payment_channel, paid_at, created_at)
     SELECT u.ids[1 + g % 1000], 'purchase', 'paid', '历史账单', 30, 30, 'balance', now() - (g % 1000) * interval '1 day', now() - (g % 1000) * interval '1 day'
       FROM generate_series(1, 100000) g, ${users} u`,
    [],
  );
  await sqlRows(
    deps,
    `INSERT INTO invoices (user_id, type, status, subject, amount, created_at)
     SELECT u.ids[1 + g % 1000], 'purchase', 'unpaid', CASE WHEN g <= 15 THEN '过期未付' ELSE '新近未付' END, 30,
            CASE WHEN g <= 15 THEN now() - interval '8 days' ELSE now() - (g % 100) * interval '1 hour' END
       FROM generate_series(1, 2015) g, ${users} u`,
    [],
  );
  for (const table of ['services', 'invoices', 'users', 'service_orders', 'payments']) await sqlRows(deps, `ANALYZE ${table}`, []);
}, 300_000);

afterAll(() => platform?.close());

describe('renewal and invoice tasks over 100,000 services and invoices', () => {
  it('services.renewal_invoices: one invoice for each due service, through indexes; the second run finds none', async () => {
    const dueIds = [...(await idsNamed('续费-自动')), ...(await idsNamed('续费-手动')), ...(await idsNamed('逾期')), ...(await idsNamed('待终止'))];
    // Batches of 3 over 28 due services, those made by one statement sharing their due date: the keyset (next_due_at, id) misses none and repeats none.
    const first = await expectIndexedOnly(platform.deps, LARGE, () => createDueRenewalInvoices(platform.deps, { taskRunId: 0, taskKey: 'services.renewal_invoices' }, { batch: 3 }));
    expect(first.result).toMatchObject({ candidates: 28, created: 28, existing: 0, failed: 0, not_renewable: 0 });
    const renewed = await sqlRows<{ service_id: number }>(platform.deps, `SELECT service_id FROM invoices WHERE type = 'renew' AND status = 'unpaid' ORDER BY service_id`, []);
    expect(renewed.map((r) => r.service_id)).toEqual(dueIds.sort((a, b) => a - b));
    const second = await expectIndexedOnly(platform.deps, LARGE, run('services.renewal_invoices'));
    expect(second.result).toMatchObject({ candidates: 0, created: 0 });
  });

  it('services.auto_renew: pays the due auto-renewing services once', async () => {
    const auto = await idsNamed('续费-自动');
    const first = await expectIndexedOnly(platform.deps, LARGE, () => autoRenewServices(platform.deps, { taskRunId: 0, taskKey: 'services.auto_renew' }, { batch: 3 }));
    expect(first.result).toMatchObject({ candidates: 10, paid: 10, failed: 0 });
    const paid = await sqlRows<{ service_id: number }>(platform.deps, `SELECT service_id FROM invoices WHERE type = 'renew' AND status = 'paid' ORDER BY service_id`, []);
    expect(paid.map((r) => r.service_id)).toEqual(auto);
    const second = await expectIndexedOnly(platform.deps, LARGE, run('services.auto_renew'));
    expect(second.result).toMatchObject({ candidates: 0, paid: 0 });
    const balance = await sqlOne<{ balance: string }>(platform.deps, 'SELECT balance::text AS balance FROM user_accounts WHERE user_id = $1', [payer.id]);
    expect(balance?.balance).toBe('700.00');
  });

  it('services.suspend_overdue, unsuspend_renewed, terminate_overdue: exactly the due services, once', async () => {
    const cases = [
      { key: 'services.suspend_overdue', name: '逾期', status: 'suspended' },
      { key: 'services.unsuspend_renewed', name: '已续费', status: 'active' },
      { key: 'services.terminate_overdue', name: '待终止', status: 'terminated' },
    ];
    for (const c of cases) {
      const ids = await idsNamed(c.name);
      const first = await expectIndexedOnly(platform.deps, LARGE, run(c.key));
      expect(first.result, c.key).toMatchObject({ candidates: ids.length, changed_locally: ids.length, failed: 0 });
      const rows = await sqlRows<{ id: number; status: string }>(platform.deps, 'SELECT id, status FROM services WHERE id = ANY($1::int[]) ORDER BY id', [ids]);
      expect(rows.every((r) => r.status === c.status), c.key).toBe(true);
      const second = await expectIndexedOnly(platform.deps, LARGE, run(c.key));
      expect(second.result, c.key).toMatchObject({ candidates: 0 });
    }
    const untouched = await sqlOne<{ n: number }>(platform.deps, `SELECT count(*)::int AS n FROM services WHERE product_name = '历史服务' AND updated_at > now() - interval '10 minutes'`, []);
    expect(untouched?.n).toBe(0);
  });

  it('billing.cancel_stale_invoices: the stale purchases and the renewals of terminated services, once', async () => {
    const stale = (await sqlRows<{ id: number }>(platform.deps, `SELECT id FROM invoices WHERE subject = '过期未付'`, [])).map((r) => r.id);
    const ofTerminated = (
      await sqlRows<{ id: number }>(platform.deps, `SELECT i.id FROM invoices i JOIN services s ON s.id = i.service_id WHERE s.product_name = '待终止' AND i.status = 'unpaid'`, [])
    ).map((r) => r.id);
    expect([stale.length, ofTerminated.length]).toEqual([15, 3]);
    const first = await expectIndexedOnly(platform.deps, LARGE, run('billing.cancel_stale_invoices'));
    expect(first.result).toMatchObject({ candidates: 18, purchase_cancelled: 15, renew_cancelled: 3, kept: 0 });
    const cancelled = await sqlRows<{ id: number }>(platform.deps, `SELECT id FROM invoices WHERE status = 'cancelled' ORDER BY id`, []);
    expect(cancelled.map((r) => r.id)).toEqual([...stale, ...ofTerminated].sort((a, b) => a - b));
    const second = await expectIndexedOnly(platform.deps, LARGE, run('billing.cancel_stale_invoices'));
    expect(second.result).toMatchObject({ candidates: 0 });
  });

  it('services.renewal_invoices: a run stops once its budget is spent and says more is due; the following runs continue, one invoice per due service', async () => {
    const batch: number[] = [];
    for (let i = 0; i < 5; i += 1) batch.push(await seedService(platform, { userId: payer.id, nextDueAt: daysFromNow(2) }));
    const runs = [];
    // A budget of 0 ms: each run makes its one invoice (a run always moves the work on) and leaves the rest.
    for (let i = 0; i < 10; i += 1) {
      const result = await createDueRenewalInvoices(platform.deps, { taskRunId: 0, taskKey: 'services.renewal_invoices' }, { budgetMs: 0 });
      runs.push(result);
      if (!result.more_due) break;
    }
    expect(runs.map((r) => [r.created, r.more_due])).toEqual([
      [1, true],
      [1, true],
      [1, true],
      [1, true],
      [1, false],
    ]);
    const invoices = await sqlRows<{ service_id: number; n: number }>(
      platform.deps,
      `SELECT service_id, count(*)::int AS n FROM invoices WHERE type = 'renew' AND service_id = ANY($1::int[]) GROUP BY service_id ORDER BY service_id`,
      [batch],
    );
    expect(invoices).toEqual(batch.sort((a, b) => a - b).map((id) => ({ service_id: id, n: 1 })));
    expect(await run('services.renewal_invoices')()).toMatchObject({ candidates: 0, created: 0, more_due: false });
  });

  it('services.renewal_invoices: a run with nothing due reads the due range and the open renewals, never a service’s history of paid invoices', async () => {
    // Three years of monthly renewals, paid and dispatched, of the services of history: 50,400
    // invoices in one statement, in a session whose first paid invoice was one row (a trigger plan
    // made for that one row once ran this statement for minutes: migration 0047).
    const loader = new pg.Client({ connectionString: platform.env.DATABASE_URL });
    await loader.connect();
    try {
      const history = `INSERT INTO invoices (user_id, type, status, subject, amount, balance_amount, payment_channel, service_id, paid_at, dispatched_at, created_at)
        SELECT s.user_id, 'renew', 'paid', '历史续费', 30, 30, 'balance', s.id, now() - g * interval '30 days', now() - g * interval '30 days', now() - g * interval '30 days'
          FROM (SELECT id, user_id FROM services WHERE product_name = '历史服务' ORDER BY id LIMIT $1) s, generate_series(37 - $2::int, 36) g`;
      expect((await loader.query(history, [1, 1])).rowCount).toBe(1);
      expect((await loader.query(`${history} WHERE (s.id, g) <> (SELECT min(id), 36 FROM services WHERE product_name = '历史服务')`, [1400, 36])).rowCount).toBe(50_399);
    } finally {
      await loader.end();
    }
    await sqlRows(platform.deps, 'ANALYZE invoices', []);
    const { result, queries } = await captureStatements(run('services.renewal_invoices'));
    expect(result).toMatchObject({ candidates: 0 });
    const reads = indexReadsOf(await explainQueries(platform.deps, queries.filter((q) => /\binvoices\b/.test(q.text))));
    expect(reads.some((r) => r.startsWith('services_due_key_idx'))).toBe(true);
    // Invoices are read through the open sets (unpaid renewals, paid ones not yet dispatched) or one by id, never walked.
    const walks = reads.filter((r) => r.startsWith('invoices_') && !/^invoices_(one_unpaid_renewal|undispatched_service_idx)\b/.test(r) && !/\(id = /.test(r));
    expect(walks).toEqual([]);
  });

  it('billing.cancel_stale_invoices: a later run reads the services ended since its last run, not the open renewal invoices of living services', async () => {
    const open = await sqlRows<{ id: number; service_id: number }>(
      platform.deps,
      `SELECT i.id, i.service_id FROM invoices i JOIN services s ON s.id = i.service_id WHERE i.type = 'renew' AND i.status = 'unpaid' AND s.status = 'active' ORDER BY i.id`,
      [],
    );
    expect(open.length).toBeGreaterThan(5);
    const ended = open[0]!;
    await sqlRows(platform.deps, `UPDATE services SET status = 'terminated', terminated_at = now() WHERE id = $1 RETURNING id`, [ended.service_id]);
    const { result, queries } = await captureStatements(run('billing.cancel_stale_invoices'));
    expect(result).toMatchObject({ candidates: 1, renew_cancelled: 1, kept: 0 });
    expect((result as { ended_since: string | null }).ended_since).not.toBeNull();
    const cancelled = await sqlRows<{ id: number }>(platform.deps, `SELECT id FROM invoices WHERE id = ANY($1::int[]) AND status = 'cancelled'`, [open.map((o) => o.id)]);
    expect(cancelled.map((r) => r.id)).toEqual([ended.id]);
    const plans = await explainQueries(platform.deps, queries.filter((q) => /^\s*SELECT/i.test(q.text) && /\binvoices\b/.test(q.text)));
    expect(seqScansOf(plans, LARGE)).toEqual([]);
    const reads = indexReadsOf(plans);
    // Neither the unpaid invoices (every kind) nor the unpaid renewals are walked: the renewals are looked up per ended service.
    expect(reads.filter((r) => r.startsWith('invoices_status_idx') || (r.startsWith('invoices_one_unpaid_renewal') && !r.includes('cond:')))).toEqual([]);
    expect(reads.some((r) => r.startsWith('services_terminated_idx'))).toBe(true);
  });
});

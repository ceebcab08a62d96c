import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemAudit } from '../../../domain/billing/audit.js';
import { insertInvoice } from '../../../domain/billing/invoices/insert-invoice.js';
import { inTransaction } from '../../../db/sql.js';
import { cancelInvoice } from '../../../domain/billing/invoices/cancel-invoice.js';
import { autoRenewServices } from '../../../domain/lifecycle/auto-renew-services.js';
import { cancelStaleInvoices } from '../../../domain/lifecycle/cancel-stale-invoices.js';
import { createDueRenewalInvoices } from '../../../domain/lifecycle/create-renewal-invoices.js';
import { unsuspendRenewedServices } from '../../../domain/lifecycle/enforce-due-dates.js';
import { createUser, daysFromNow, seedRenewInvoice, seedService } from '../../helpers/lifecycle.js';
import { adjustBalance, expectBooksBalanced } from '../../helpers/billing.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { eventually } from '../../helpers/wait.js';

let platform: TestPlatform;
const run = { taskRunId: 3, taskKey: 'services.auto_renew' };

beforeAll(async () => {
  // Workers: a renewal paid by auto-renew is fulfilled by its renew:<invoice_no> workflow.
  platform = await startTestPlatform({ worker: true });
});
afterAll(() => platform?.close());
beforeEach(async () => {
  await platform.deps.db.sequelize.query(`UPDATE services SET status = 'cancelled', suspend_reason = NULL WHERE status IN ('active', 'suspended')`);
});

async function invoice(id: number) {
  const row = await platform.deps.db.models.Invoice.findByPk(id);
  if (!row) throw new Error('invoice gone');
  return row;
}

async function balance(userId: number): Promise<string> {
  const [[row]] = (await platform.deps.db.sequelize.query(`SELECT COALESCE((SELECT balance FROM user_accounts WHERE user_id = ${userId}), 0)::text AS b`)) as [[{ b: string }], unknown];
  return row.b;
}

async function renewInvoicesOf(serviceId: number) {
  return platform.deps.db.models.Invoice.findAll({ where: { service_id: serviceId, type: 'renew' }, order: [['id', 'ASC']] });
}

describe('renewal invoices ahead of due dates', () => {
  it('makes one renewal invoice for the service’s own period and price, due within RENEWAL_INVOICE_LEAD_DAYS, once per due date', async () => {
    const user = await createUser(platform);
    const soon = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(5), price: '45.50' });
    const late = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(-2), status: 'suspended', suspendReason: 'overdue', suspendedAt: daysFromNow(0) });
    const far = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(20) });
    const gone = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(2), status: 'terminated' });
    const renewing = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(1) });
    await seedRenewInvoice(platform, { userId: user.id, serviceId: renewing, amount: '30.00', status: 'paid' });

    const first = await createDueRenewalInvoices(platform.deps, { taskRunId: 11, taskKey: 'services.renewal_invoices' });
    expect(first).toMatchObject({ candidates: 2, created: 2, existing: 0, failed: 0, lead_days: 7 });
    const [invoice] = await renewInvoicesOf(soon);
    expect(invoice).toMatchObject({ status: 'unpaid', amount: '45.50', user_id: user.id, operator_type: 'system' });
    expect(invoice?.payload).toMatchObject({ service_id: soon, billing_period: 'monthly', months: 1, source: 'scheduler' });
    expect((await renewInvoicesOf(late)).map((i) => i.status)).toEqual(['unpaid']);
    expect(await renewInvoicesOf(far)).toEqual([]);
    expect(await renewInvoicesOf(gone)).toEqual([]);
    expect((await renewInvoicesOf(renewing)).map((i) => i.status)).toEqual(['paid']);

    expect(await createDueRenewalInvoices(platform.deps, { taskRunId: 12, taskKey: 'services.renewal_invoices' })).toMatchObject({ candidates: 0, created: 0 });
    // The user withdraws it: the scheduler does not make another for the same due date.
    await cancelInvoice(platform.deps, { userId: user.id, invoiceId: invoice?.id ?? 0 });
    expect(await createDueRenewalInvoices(platform.deps, { taskRunId: 13, taskKey: 'services.renewal_invoices' })).toMatchObject({ candidates: 1, created: 0, existing: 1 });
    expect((await renewInvoicesOf(soon)).map((i) => i.status)).toEqual(['cancelled']);
    await expectBooksBalanced(platform);
  });
});

describe('auto-renew from balance', () => {
  it('pays the renewal invoice of an auto-renewing service due soon exactly once, from the balance', async () => {
    const user = await createUser(platform);
    await adjustBalance(platform, user.id, '100.00');
    const id = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(3), autoRenew: true });
    const renew = await seedRenewInvoice(platform, { userId: user.id, serviceId: id, amount: '30.00' });
    await platform.deps.db.models.PluginRuntimeLog.destroy({ where: {} });
    const first = await autoRenewServices(platform.deps, run);
    expect(first).toMatchObject({ candidates: 1, paid: 1, insufficient_balance: 0, failed: 0 });
    expect(await invoice(renew.id)).toMatchObject({ status: 'paid', payment_channel: 'balance', balance_amount: '30.00' });
    expect(await balance(user.id)).toBe('70.00');
    const payments = await platform.deps.db.models.AccountTransaction.findAll({ where: { user_id: user.id, type: 'payment' } });
    expect(payments.map((p) => [p.amount, p.idempotency_key])).toEqual([['-30.00', `invoice-balance:${renew.invoice_no}`]]);
    expect(await invoice(renew.id)).toMatchObject({ operator_type: 'system' });

    const second = await autoRenewServices(platform.deps, run);
    expect(second).toMatchObject({ candidates: 0, paid: 0 });
    expect(await balance(user.id)).toBe('70.00');
    // Local invoices only: the upstream's auto-renew is never called, switched or read.
    expect(await platform.deps.db.models.PluginRuntimeLog.count({ where: { domain: 'upstream' } })).toBe(0);
    await expectBooksBalanced(platform);
  });

  it('leaves the invoice unpaid when the balance does not cover it, and pays it once the user topped up', async () => {
    const user = await createUser(platform);
    await adjustBalance(platform, user.id, '10.00');
    const id = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(-1), status: 'suspended', suspendReason: 'overdue', suspendedAt: daysFromNow(0), autoRenew: true });
    const renew = await seedRenewInvoice(platform, { userId: user.id, serviceId: id, amount: '30.00' });
    expect(await autoRenewServices(platform.deps, run)).toMatchObject({ candidates: 1, paid: 0, insufficient_balance: 1 });
    expect((await invoice(renew.id)).status).toBe('unpaid');
    expect(await balance(user.id)).toBe('10.00');
    await adjustBalance(platform, user.id, '25.00');
    expect(await autoRenewServices(platform.deps, run)).toMatchObject({ paid: 1 });
    expect(await balance(user.id)).toBe('5.00');
    await expectBooksBalanced(platform);
  });

  it('end to end: the scheduler’s invoice is paid from the balance, the renewal moves the due date, and the suspended service comes back', async () => {
    const user = await createUser(platform);
    await adjustBalance(platform, user.id, '50.00');
    const due = daysFromNow(-4);
    const id = await seedService(platform, { userId: user.id, nextDueAt: due, status: 'suspended', suspendReason: 'overdue', suspendedAt: daysFromNow(-1), autoRenew: true, price: '30.00' });
    expect(await createDueRenewalInvoices(platform.deps, { taskRunId: 21, taskKey: 'services.renewal_invoices' })).toMatchObject({ created: 1 });
    expect(await autoRenewServices(platform.deps, run)).toMatchObject({ paid: 1 });
    const renewed = await eventually(async () => {
      const row = await platform.deps.db.models.Service.findByPk(id);
      return row?.next_due_at && row.next_due_at.getTime() > Date.now() ? row : null;
    });
    // One month from the old due date (the renewal extends contiguous periods).
    expect(renewed.next_due_at?.getTime()).toBeGreaterThan(due.getTime() + 27 * 86_400_000);
    expect(renewed.status).toBe('suspended');
    expect(await unsuspendRenewedServices(platform.deps, run)).toMatchObject({ changed_locally: 1 });
    expect(await platform.deps.db.models.Service.findByPk(id)).toMatchObject({ status: 'active', suspend_reason: null });
    expect(await balance(user.id)).toBe('20.00');
    await expectBooksBalanced(platform);
  });

  it('pays nothing for services without auto-renew or not due within RENEWAL_INVOICE_LEAD_DAYS', async () => {
    const user = await createUser(platform);
    await adjustBalance(platform, user.id, '100.00');
    const manual = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(2), autoRenew: false });
    const far = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(20), autoRenew: true });
    const a = await seedRenewInvoice(platform, { userId: user.id, serviceId: manual, amount: '30.00' });
    const b = await seedRenewInvoice(platform, { userId: user.id, serviceId: far, amount: '30.00' });
    expect(await autoRenewServices(platform.deps, run)).toMatchObject({ candidates: 0, paid: 0 });
    expect([(await invoice(a.id)).status, (await invoice(b.id)).status]).toEqual(['unpaid', 'unpaid']);
    expect(await balance(user.id)).toBe('100.00');
  });

  it('a run stops once its budget is spent and the next goes on from where it stopped, past an invoice the balance does not cover', async () => {
    await platform.deps.db.sequelize.query(`DELETE FROM task_watermarks WHERE task_key = '${run.taskKey}'`);
    const poor = await createUser(platform);
    const rich = await createUser(platform);
    await adjustBalance(platform, rich.id, '100.00');
    // The uncovered one is due first: a run that started again from the earliest due date would try it every time.
    const uncovered = await seedService(platform, { userId: poor.id, nextDueAt: daysFromNow(-3), autoRenew: true });
    const later = [await seedService(platform, { userId: rich.id, nextDueAt: daysFromNow(-2), autoRenew: true }), await seedService(platform, { userId: rich.id, nextDueAt: daysFromNow(-1), autoRenew: true })];
    const unpaid = await seedRenewInvoice(platform, { userId: poor.id, serviceId: uncovered, amount: '30.00' });
    const paid = [];
    for (const id of later) paid.push(await seedRenewInvoice(platform, { userId: rich.id, serviceId: id, amount: '30.00' }));

    // A budget of 0 ms: each run makes its one payment (a run always moves the work on) and keeps its place.
    const runs = [];
    for (let i = 0; i < 3; i += 1) runs.push(await autoRenewServices(platform.deps, run, { budgetMs: 0 }));
    expect(runs.map((r) => [r['candidates'], r['paid'], r['insufficient_balance'], r['more_due'], r['resumed']])).toEqual([
      [1, 0, 1, true, false],
      [1, 1, 0, true, true],
      [1, 1, 0, false, true],
    ]);
    expect((await invoice(unpaid.id)).status).toBe('unpaid');
    for (const row of paid) expect((await invoice(row.id)).status).toBe('paid');
    expect(await balance(rich.id)).toBe('40.00');
    // The run that reached the end cleared the place: the next starts from the earliest due date again.
    expect(await autoRenewServices(platform.deps, run, { budgetMs: 0 })).toMatchObject({ candidates: 1, insufficient_balance: 1, more_due: false, resumed: false });
    await platform.deps.db.sequelize.query(`DELETE FROM task_watermarks WHERE task_key = '${run.taskKey}'`);
    await expectBooksBalanced(platform);
  });
});

describe('stale invoice cancellation', () => {
  async function unpaid(userId: number, type: 'purchase' | 'traffic_package', daysAgo: number) {
    const { invoice: row } = await inTransaction(platform.deps, (tx) =>
      insertInvoice(
        platform.deps,
        {
          userId,
          type,
          status: 'unpaid',
          subject: type === 'purchase' ? '新购：入门型' : '流量包：100GB',
          amount: '20.00',
          items: [{ key: 'base', description: '入门型', unitAmount: '20.00', quantity: 1, amount: '20.00' }],
          audit: systemAudit('test'),
        },
        tx,
      ),
    );
    await platform.deps.db.sequelize.query(`UPDATE invoices SET created_at = now() - make_interval(days => ${daysAgo}) WHERE id = ${row.id}`);
    return row;
  }

  it('cancels unpaid purchase and traffic-package invoices older than STALE_INVOICE_CANCEL_DAYS and renewals of terminated services, once', async () => {
    await platform.deps.db.sequelize.query(`UPDATE invoices SET status = 'cancelled', cancelled_at = now() WHERE status = 'unpaid'`);
    const user = await createUser(platform);
    const old = await unpaid(user.id, 'purchase', 8);
    const oldTraffic = await unpaid(user.id, 'traffic_package', 10);
    const fresh = await unpaid(user.id, 'purchase', 2);
    const terminated = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(-20), status: 'terminated' });
    const living = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(3) });
    const deadRenew = await seedRenewInvoice(platform, { userId: user.id, serviceId: terminated, amount: '30.00' });
    const liveRenew = await seedRenewInvoice(platform, { userId: user.id, serviceId: living, amount: '30.00' });
    const first = await cancelStaleInvoices(platform.deps);
    expect(first).toMatchObject({ candidates: 3, purchase_cancelled: 1, traffic_package_cancelled: 1, renew_cancelled: 1, kept: 0, stale_days: 7 });
    expect((await invoice(old.id)).status).toBe('cancelled');
    expect((await invoice(oldTraffic.id)).status).toBe('cancelled');
    expect((await invoice(deadRenew.id)).status).toBe('cancelled');
    expect((await invoice(fresh.id)).status).toBe('unpaid');
    expect((await invoice(liveRenew.id)).status).toBe('unpaid');
    const orders = await platform.deps.db.models.Order.findAll({ where: { invoice_id: deadRenew.id } });
    expect(orders.map((o) => o.status)).toEqual(['cancelled']);
    expect(await cancelStaleInvoices(platform.deps)).toMatchObject({ candidates: 0 });
    await expectBooksBalanced(platform);
  });
});

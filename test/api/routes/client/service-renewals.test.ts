import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemAudit } from '../../../../domain/billing/audit.js';
import { cancelInvoice } from '../../../../domain/billing/invoices/cancel-invoice.js';
import { createRenewalInvoice } from '../../../../domain/services/renewals/create-renewal-invoice.js';
import { expectError } from '../../../helpers/http.js';
import { adjustBalance, registerClient, type TestClient } from '../../../helpers/billing.js';
import { createService, type ServicesPlatform, startServicesPlatform } from '../../../helpers/services.js';
import { due, renewalCalls } from '../../../helpers/renewals.js';

let platform: ServicesPlatform;
let client: TestClient;
const { renew } = renewalCalls(() => ({ platform, client }));

beforeAll(async () => {
  // Previews and invoices only: the renewal workflow is tested in test/workflows/renewal/, the admin's orders in admin/service-orders.
  platform = await startServicesPlatform({}, { worker: false });
  client = await registerClient(platform);
  await adjustBalance(platform, client.id, '5000.00');
});
afterAll(() => platform?.close());

const base = '/api/v2/client/services';

describe('renewal preview', () => {
  it('offers the service’s own period at its locked price and other periods at the catalogue price of its configuration', async () => {
    const id = await createService(platform, { userId: client.id, productId: platform.productId, price: '66.00', nextDueAt: due('2026-01-31 10:00:00') });
    const res = await platform.api.get(`${base}/${id}/renew`, { token: client.token });
    expect(res.body.data).toMatchObject({ service_id: id, renewable: true, reason: null, billing_period: 'monthly', next_due_at: '2026-01-31 10:00:00', unpaid_invoice: null });
    const options = res.body.data.options as Array<{ billing_period: string; amount: string; months: number; is_current: boolean; next_due_at: string }>;
    expect(options[0]).toEqual({ billing_period: 'monthly', label: '月付', months: 1, amount: '66.00', currency: 'CNY', is_current: true, next_due_at: '2026-02-28 10:00:00' });
    expect(options.map((o) => o.billing_period)).toEqual(['monthly', 'quarterly', 'semiannually', 'annually']);
    const quarterly = options.find((o) => o.billing_period === 'quarterly');
    const quote = await platform.api.post(`/api/v2/site/products/${platform.productId}/quote`, { body: { billing_period: 'quarterly' } });
    expect(quarterly).toMatchObject({ amount: quote.body.data.total_amount, is_current: false, months: 3, next_due_at: '2026-04-30 10:00:00' });
  });

  it('says why a one-time or ended service cannot renew, and refuses the invoice', async () => {
    const onetime = await createService(platform, { userId: client.id, productId: platform.productId, billingPeriod: 'onetime', nextDueAt: null });
    const preview = await platform.api.get(`${base}/${onetime}/renew`, { token: client.token });
    expect(preview.body.data).toMatchObject({ renewable: false, reason: '一次性付费的服务无需续费', options: [] });
    expectError(await platform.api.post(`${base}/${onetime}/renew`, { token: client.token, body: { billing_period: 'monthly' } }), 40942, 409);
    const ended = await createService(platform, { userId: client.id, productId: platform.productId, status: 'terminated' });
    expect((await platform.api.get(`${base}/${ended}/renew`, { token: client.token })).body.data).toMatchObject({ renewable: false, reason: '服务已终止，不可续费' });
    expectError(await platform.api.post(`${base}/${ended}/renew`, { token: client.token, body: { billing_period: 'monthly' } }), 40942, 409);
    const live = await createService(platform, { userId: client.id, productId: platform.productId });
    const bad = await platform.api.post(`${base}/${live}/renew`, { token: client.token, body: { billing_period: 'onetime' } });
    expectError(bad, 42200, 422);
    expect(Object.keys(bad.body.data.errors)).toEqual(['billing_period']);
    expectError(await platform.api.post(`${base}/${live}/renew`, { token: client.token, body: { billing_period: 'biennially' } }), 42200, 422);
    expect(await platform.deps.db.models.Invoice.count({ where: { service_id: [onetime, ended, live] } })).toBe(0);
  });
});

describe('renewal invoices', () => {
  it('keeps one unpaid renewal per service: the same period answers it again, another period is refused', async () => {
    const id = await createService(platform, { userId: client.id, productId: platform.productId, price: '66.00' });
    const first = await renew(id);
    expect(first).toMatchObject({ type: 'renew', status: 'unpaid', amount: '66.00', service_id: id, order: { type: 'renewal', status: 'pending' } });
    const again = await platform.api.post(`${base}/${id}/renew`, { token: client.token, body: { billing_period: 'monthly' } });
    expect(again.body).toMatchObject({ code: 0, message: '已有相同周期的未支付续费账单', data: { id: first.id } });
    const other = await platform.api.post(`${base}/${id}/renew`, { token: client.token, body: { billing_period: 'annually' } });
    expectError(other, 40940, 409);
    expect(other.body.data).toMatchObject({ invoice_id: first.id, billing_period: 'monthly' });
    const invoice = await platform.deps.db.models.Invoice.findByPk(first.id);
    expect(invoice?.payload).toMatchObject({ service_id: id, billing_period: 'monthly', months: 1, source: 'client' });
    expect((await platform.api.get(`${base}/${id}/renew`, { token: client.token })).body.data.unpaid_invoice).toMatchObject({ id: first.id, billing_period: 'monthly' });
  });

  it('is idempotent for the scheduler per due date, also after the user cancelled that invoice, and takes the user’s unpaid one first', async () => {
    const id = await createService(platform, { userId: client.id, productId: platform.productId });
    const audit = systemAudit('renewal-job');
    const made = await createRenewalInvoice(platform.deps, { serviceId: id, billingPeriod: 'monthly', source: 'scheduler' }, audit);
    expect(made.created).toBe(true);
    expect(made.invoice.payload['schedule_key']).toMatch(new RegExp(`^renewal:${id}:`));
    const repeat = await createRenewalInvoice(platform.deps, { serviceId: id, billingPeriod: 'monthly', source: 'scheduler' }, audit);
    expect(repeat).toMatchObject({ created: false, invoice: { id: made.invoice.id } });
    await cancelInvoice(platform.deps, { userId: client.id, invoiceId: made.invoice.id });
    const afterCancel = await createRenewalInvoice(platform.deps, { serviceId: id, billingPeriod: 'monthly', source: 'scheduler' }, audit);
    expect(afterCancel).toMatchObject({ created: false, invoice: { id: made.invoice.id, status: 'cancelled' } });
    const byClient = await renew(id, 'annually');
    expect(byClient.id).not.toBe(made.invoice.id);
    const schedulerSeesClient = await createRenewalInvoice(platform.deps, { serviceId: id, billingPeriod: 'monthly', source: 'scheduler' }, audit);
    expect(schedulerSeesClient).toMatchObject({ created: false, invoice: { id: byClient.id } });
    expect(await platform.deps.db.models.Invoice.count({ where: { service_id: id, type: 'renew' } })).toBe(2);
  });
});

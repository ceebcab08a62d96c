import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../../helpers/http.js';
import { adjustBalance, balanceOf, createProduct, expectBooksBalanced, purchase, registerClient, startBillingPlatform, type BillingPlatform } from '../../../../helpers/billing.js';
import { eventually } from '../../../../helpers/wait.js';

let platform: BillingPlatform;

beforeAll(async () => {
  platform = await startBillingPlatform();
});
afterAll(() => platform?.close());

describe('purchase invoice paid from the balance', () => {
  it('is priced by the quote, settles once, creates the service and starts its provisioning', async () => {
    const product = await createProduct(platform, '19.90');
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, product.id, { quantity: 2 });
    expect(invoice).toMatchObject({ type: 'purchase', status: 'unpaid', amount: '39.80', order: { type: 'new_purchase', status: 'pending' } });
    expect(invoice.items).toEqual([{ description: '入门型（月付）', unit_amount: '19.90', quantity: 2, amount: '39.80' }]);

    expectError(await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token }), 40911, 409);
    await adjustBalance(platform, client.id, 50);
    const paid = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token });
    expect(paid.body.data).toMatchObject({ status: 'paid', balance_amount: '39.80', third_party_amount: '0.00', payment_channel: 'balance', order: { status: 'paid' } });
    expect(await balanceOf(platform, client)).toBe('10.20');
    expectError(await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token }), 40910, 409);
    expect(await balanceOf(platform, client)).toBe('10.20');

    const services = await platform.deps.db.models.Service.findAll({ where: { invoice_id: invoice.id }, order: [['seq', 'ASC']] });
    expect(services.map((s) => [s.seq, s.status, s.price])).toEqual([
      [1, 'pending', '19.90'],
      [2, 'pending', '19.90'],
    ]);
    const dispatched = await eventually(async () => (await platform.deps.db.models.Invoice.findByPk(invoice.id))?.dispatched_at ?? null);
    expect(dispatched).toBeInstanceOf(Date);
    const described = await platform.temporal.workflow.getHandle(`provision:${services[0]?.id}`).describe();
    expect(described.type).toBe('provisionServiceWorkflow');
    await expectBooksBalanced(platform);
  });
});

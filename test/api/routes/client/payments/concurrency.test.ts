import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adjustBalance, balanceOf, createProduct, expectBooksBalanced, purchase, registerClient, startBillingPlatform, type BillingPlatform } from '../../../../helpers/billing.js';

let platform: BillingPlatform;

beforeAll(async () => {
  platform = await startBillingPlatform();
});
afterAll(() => platform?.close());

describe('concurrent balance payments', () => {
  it('50 payments at once on one user: no overdraft, every success in the ledger, every refusal 40911', async () => {
    const product = await createProduct(platform, '10.00');
    const client = await registerClient(platform);
    await adjustBalance(platform, client.id, '250.00');
    const invoices = [];
    for (let i = 0; i < 50; i++) invoices.push(await purchase(platform, client, product.id));

    const answers = await Promise.all(invoices.map((inv) => platform.api.post(`/api/v2/client/invoices/${inv.id}/pay/balance`, { token: client.token })));
    const codes = answers.map((a) => a.body.code);
    expect(codes.filter((c) => c === 0)).toHaveLength(25);
    expect(codes.filter((c) => c === 40911)).toHaveLength(25);
    expect(await balanceOf(platform, client)).toBe('0.00');

    const paidIds = answers.filter((a) => a.body.code === 0).map((a) => a.body.data.id as number).sort((a, b) => a - b);
    const m = platform.deps.db.models;
    const payments = await m.AccountTransaction.findAll({ where: { user_id: client.id, type: 'payment' }, order: [['seq', 'ASC']] });
    expect(payments.map((t) => t.invoice_id).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(paidIds);
    expect(payments.every((t) => t.amount === '-10.00')).toBe(true);
    expect(payments.map((t) => t.seq)).toEqual(Array.from({ length: 25 }, (_, i) => i + 2));
    expect(await m.Invoice.count({ where: { user_id: client.id, type: 'purchase', status: 'paid' } })).toBe(25);
    expect(await m.Service.count({ where: { user_id: client.id } })).toBe(25);
    await expectBooksBalanced(platform);
  });

  it('the same invoice paid 10 times at once is settled once', async () => {
    const product = await createProduct(platform, '7.00');
    const client = await registerClient(platform);
    await adjustBalance(platform, client.id, '100.00');
    const invoice = await purchase(platform, client, product.id);
    const answers = await Promise.all(Array.from({ length: 10 }, () => platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token })));
    expect(answers.map((a) => a.body.code).sort()).toEqual([0, ...Array<number>(9).fill(40910)]);
    expect(await balanceOf(platform, client)).toBe('93.00');
    expect(await platform.deps.db.models.Service.count({ where: { invoice_id: invoice.id } })).toBe(1);
    await expectBooksBalanced(platform);
  });

  it('QR payment requests for one invoice at once open a single payment', async () => {
    const product = await createProduct(platform, '3.00');
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, product.id);
    const answers = await Promise.all(Array.from({ length: 10 }, () => platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token })));
    expect(new Set(answers.map((a) => a.body.data.payment_no)).size).toBe(1);
    expect(await platform.deps.db.models.Payment.count({ where: { invoice_id: invoice.id } })).toBe(1);
  });
});

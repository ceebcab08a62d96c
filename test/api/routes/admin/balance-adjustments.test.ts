import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../helpers/http.js';
import { balanceOf, expectBooksBalanced, registerClient, type TestClient } from '../../../helpers/billing.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let token: string;
let client: TestClient;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
  client = await registerClient(platform);
});
afterAll(() => platform?.close());

const path = () => `/api/v2/admin/users/${client.id}/recharges`;

describe('admin balance adjustment (POST /api/v2/admin/users/{user}/recharges)', () => {
  it('recharges: recharge invoice, positive transaction, admin_recharge record with the fixed remark, operator, time and reason', async () => {
    const res = await platform.api.post(path(), { token, body: { amount: 120.5, remark: '线下转账到账' } });
    expect(res.body.message).toBe('余额充值成功');
    const data = res.body.data;
    expect(data).toMatchObject({
      status: 'succeeded',
      message: '余额充值成功',
      detail: {
        type: 'admin_recharge',
        user: { id: client.id },
        adjustment: { amount: '120.50', direction: 'increase', balance_after: '120.50' },
        documents: { invoice_id: data.id, account_transaction_id: expect.any(Number), recharge_record_id: expect.any(Number) },
      },
    });
    const m = platform.deps.db.models;
    const invoice = await m.Invoice.findByPk(data.detail.documents.invoice_id);
    expect(invoice).toMatchObject({ type: 'recharge', status: 'paid', amount: '120.50', payment_channel: 'admin', remark: '线下转账到账', operator_type: 'admin', operator_name: 'root' });
    const transaction = await m.AccountTransaction.findByPk(data.detail.documents.account_transaction_id);
    expect(transaction).toMatchObject({ type: 'admin_recharge', amount: '120.50', balance_before: '0.00', balance_after: '120.50', invoice_id: invoice?.id, seq: 1 });
    const record = await m.RechargeRecord.findByPk(data.detail.documents.recharge_record_id);
    expect(record).toMatchObject({ scene: 'admin_recharge', direction: 'in', entry_type: 'admin', amount: '120.50', reason: '线下转账到账', operator_type: 'admin', operator_name: 'root', account_transaction_id: transaction?.id, payment_id: null });
    expect(record?.remark).toMatch(/^管理员后台充值（操作人：root，时间：\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}）$/);
    expect(await balanceOf(platform, client)).toBe('120.50');
    await expectBooksBalanced(platform);
  });

  it('deducts: deduction invoice, negative transaction, no recharge record; a deduction may take the balance below zero', async () => {
    const res = await platform.api.post(path(), { token, body: { amount: '-200.00', remark: '误充退回' } });
    expect(res.body.data).toMatchObject({
      status: 'succeeded',
      message: '余额扣款成功',
      detail: { type: 'admin_deduction', adjustment: { amount: '200.00', direction: 'decrease', balance_after: '-79.50' }, documents: { recharge_record_id: null } },
    });
    const m = platform.deps.db.models;
    expect(await m.Invoice.findByPk(res.body.data.detail.documents.invoice_id)).toMatchObject({ type: 'deduction', status: 'paid', amount: '200.00', balance_amount: '200.00' });
    expect(await m.AccountTransaction.findByPk(res.body.data.detail.documents.account_transaction_id)).toMatchObject({ type: 'admin_deduction', amount: '-200.00', balance_after: '-79.50' });
    expect(await m.RechargeRecord.count({ where: { invoice_id: res.body.data.detail.documents.invoice_id } })).toBe(0);
    expect(await balanceOf(platform, client)).toBe('-79.50');
    await platform.api.post(path(), { token, body: { amount: '79.50', remark: '补平' } });
    expect(await balanceOf(platform, client)).toBe('0.00');
    await expectBooksBalanced(platform);
  });

  it.each([
    ['amount 0', { amount: 0, remark: '零' }, 'amount'],
    ['amount "0.00"', { amount: '0.00', remark: '零' }, 'amount'],
    ['three decimals', { amount: '1.005', remark: '精度' }, 'amount'],
    ['not a number', { amount: 'ten', remark: '文字' }, 'amount'],
    ['missing amount', { remark: '缺金额' }, 'amount'],
    ['missing remark', { amount: 10 }, 'remark'],
    ['blank remark', { amount: 10, remark: '   ' }, 'remark'],
    ['a 201-character remark', { amount: 10, remark: '备'.repeat(201) }, 'remark'],
  ])('refuses %s with 42200 naming the field and changes nothing', async (_label, body, field) => {
    const before = await platform.deps.db.models.AccountTransaction.count();
    const res = await platform.api.post(path(), { token, body });
    expectError(res, 42200, 422);
    expect(Object.keys(res.body.data.errors)).toEqual([field]);
    expect(res.body.data.errors[field][0]).toMatch(/\p{Script=Han}/u);
    expect(await platform.deps.db.models.AccountTransaction.count()).toBe(before);
  });

  it('takes a remark of exactly 200 characters, and answers 40400 for an unknown user', async () => {
    const res = await platform.api.post(path(), { token, body: { amount: 1, remark: '备'.repeat(200) } });
    expect(res.body.code).toBe(0);
    expectError(await platform.api.post('/api/v2/admin/users/999999/recharges', { token, body: { amount: 1, remark: '无此人' } }), 40400, 404);
  });

  it('shows the user\'s account with the balance the adjustments left', async () => {
    const account = await platform.api.get(`/api/v2/admin/users/${client.id}/account`, { token });
    expect(account.body.data).toMatchObject({ user_id: client.id, balance: '1.00', currency: 'CNY' });
    expectError(await platform.api.get('/api/v2/admin/users/999999/account', { token }), 40400, 404);
  });
});

describe('the database keeps the ledger honest on its own', () => {
  it('refuses a direct balance update, a changed or deleted transaction, a deleted invoice and an out-of-sequence entry', async () => {
    const { sequelize } = platform.deps.db;
    await expect(sequelize.query(`UPDATE user_accounts SET balance = balance + 100 WHERE user_id = ${client.id}`)).rejects.toThrow(/only through account_transactions/);
    await expect(sequelize.query(`UPDATE account_transactions SET amount = 999 WHERE user_id = ${client.id}`)).rejects.toThrow(/never change/);
    await expect(sequelize.query(`DELETE FROM account_transactions WHERE user_id = ${client.id}`)).rejects.toThrow(/never change/);
    await expect(sequelize.query(`DELETE FROM invoices WHERE user_id = ${client.id}`)).rejects.toThrow(/never deleted/);
    await expect(
      sequelize.query(
        `INSERT INTO account_transactions (user_id, seq, type, amount, balance_before, balance_after, idempotency_key, operator_type)
         VALUES (${client.id}, 9, 'admin_recharge', 5, 1, 6, 'manual-1', 'system')`,
      ),
    ).rejects.toThrow(/out of sequence/);
    await expect(
      sequelize.query(
        `INSERT INTO account_transactions (user_id, seq, type, amount, balance_before, balance_after, idempotency_key, operator_type)
         VALUES (${client.id}, 5, 'payment', -5, 1, -4, 'manual-2', 'system')`,
      ),
    ).rejects.toThrow(/account_transactions_no_overdraft/);
    expect(await balanceOf(platform, client)).toBe('1.00');
    await expectBooksBalanced(platform);
  });
});

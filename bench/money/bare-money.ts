import type { IncomingMessage, ServerResponse } from 'node:http';
import type pg from 'pg';
import { BARE_NOTIFY, BARE_PAY_BALANCE } from '../lib/bare-money-sql.js';

type Reply = (res: ServerResponse, status: number, body: unknown) => void;

type InvoiceRow = { id: number; user_id: number; invoice_no: string; type: string; status: string; amount: string; payload: Record<string, unknown>; pending_payment_no: string | null };

function cents(text: string): bigint {
  const [whole = '0', frac = ''] = text.replace('-', '').split('.');
  const value = BigInt(whole) * 100n + BigInt((frac + '00').slice(0, 2));
  return text.startsWith('-') ? -value : value;
}

function yuan(value: bigint): string {
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

async function createServices(client: pg.PoolClient, invoice: InvoiceRow, orderId: number): Promise<void> {
  const p = invoice.payload;
  await client.query(BARE_PAY_BALANCE.insertServices, [
    invoice.user_id,
    p.product_id,
    orderId,
    invoice.id,
    p.product_type,
    p.billing_period,
    JSON.stringify(p.config ?? {}),
    p.unit_price,
    p.quantity,
    String(p.product_name ?? '').slice(0, 128),
  ]);
}

/** POST /pay-balance/<invoice id>: the balance payment's transaction. */
export async function barePayBalance(pool: pg.Pool, invoiceId: number, res: ServerResponse, send: Reply): Promise<void> {
  const outcome = await inTransaction(pool, async (client) => {
    const invoice = (await client.query<InvoiceRow>(BARE_PAY_BALANCE.lockInvoice, [invoiceId])).rows[0];
    if (!invoice) return { status: 404, code: 40400 };
    if (invoice.status !== 'unpaid') return { status: 409, code: 40910 };
    if (invoice.pending_payment_no) return { status: 409, code: 40913 };
    const account = (await client.query<{ balance: string; last_seq: number }>(BARE_PAY_BALANCE.lockAccount, [invoice.user_id])).rows[0];
    const before = cents(account?.balance ?? '0');
    const amount = cents(invoice.amount);
    if (!account || before < amount) return { status: 409, code: 40911 };
    await client.query(BARE_PAY_BALANCE.insertTransaction, [
      invoice.user_id,
      account.last_seq + 1,
      yuan(-amount),
      yuan(before),
      yuan(before - amount),
      invoice.id,
      `invoice-balance:${invoice.invoice_no}`,
      'bare',
    ]);
    await client.query(BARE_PAY_BALANCE.settleInvoice, [invoice.id, invoice.amount]);
    const order = (await client.query<{ id: number }>(BARE_PAY_BALANCE.payOrder, [invoice.id])).rows[0];
    if (order && invoice.type === 'purchase') await createServices(client, invoice, order.id);
    return { status: 200, code: 0 };
  });
  send(res, outcome.status, { code: outcome.code, message: outcome.code === 0 ? '支付成功' : '失败', data: { id: invoiceId, status: 'paid' }, timestamp: 0 });
}

async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

/** POST /notify: the settlement of a paid notification (form body), answered `success`. */
export async function bareNotify(pool: pg.Pool, req: IncomingMessage, res: ServerResponse, send: Reply): Promise<void> {
  const fields = await readForm(req);
  const plugin = (await pool.query<{ id: number }>(BARE_NOTIFY.plugin)).rows[0];
  await pool.query(BARE_NOTIFY.runtimeLog, [plugin?.id ?? null, JSON.stringify({ action: 'payment.verify_notify', payload: fields }).slice(0, 2000)]);
  // A repeat is answered from a plain read, without a lock (as domain/billing does).
  const seen = (await pool.query<{ status: string; invoice_no: string }>(BARE_NOTIFY.seenPayment, [fields.out_trade_no ?? ''])).rows[0];
  const outcome = seen && seen.status !== 'pending' && seen.status !== 'closed' ? 200 : await inTransaction(pool, async (client) => {
    const payment = (await client.query<{ id: number; invoice_id: number; user_id: number; amount: string; balance_part: string; status: string }>(
      BARE_NOTIFY.lockPayment,
      [fields.out_trade_no ?? ''],
    )).rows[0];
    if (!payment) return 404;
    if (cents(payment.amount) !== cents(fields.total_amount ?? '0')) return 409;
    if (payment.status !== 'pending') return 200;
    await client.query(BARE_NOTIFY.payPayment, [payment.id, fields.trade_no ?? '', seen?.invoice_no ?? '']);
    const invoice = (await client.query<InvoiceRow>(BARE_NOTIFY.lockInvoice, [payment.invoice_id])).rows[0];
    if (!invoice) return 404;
    await client.query(BARE_NOTIFY.settleInvoice, [invoice.id, payment.balance_part, payment.amount]);
    const order = (await client.query<{ id: number }>(BARE_NOTIFY.payOrder, [invoice.id])).rows[0];
    if (order && invoice.type === 'purchase') await createServices(client, invoice, order.id);
    await client.query(BARE_NOTIFY.insertRechargeRecord, [payment.user_id, order?.id ?? null, invoice.id, payment.id, payment.amount]);
    return 200;
  });
  if (outcome === 200) {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': 7 });
    res.end('success');
    return;
  }
  send(res, outcome, { code: outcome === 404 ? 40400 : 40916, message: '失败', data: null, timestamp: 0 });
}

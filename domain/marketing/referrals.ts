import { formatMoney } from '../../lib/money.js';
import type { DomainDeps } from '../deps.js';
import { sqlOne, sqlRows, qualified } from '../../db/sql.js';
import { notFound } from '../../lib/errors.js';
import { COMMISSION_ENTRY_COLUMNS, type CommissionEntryRecord, type CommissionKind, type CommissionStatus, type ReferralAccountRecord } from '../../db/models/marketing.js';
import { ensureReferralAccount } from './referral-accounts.js';

/** An e-mail as an invitee list shows it: `ab***@example.com`. */
export function maskEmail(email: string | null): string {
  if (!email) return '';
  const [name = '', domain = ''] = email.split('@');
  return `${name.slice(0, Math.min(2, Math.max(1, name.length - 1)))}***@${domain}`;
}

/** A phone number as shown to others: `138****0000`. */
export function maskPhone(phone: string | null): string {
  if (!phone) return '';
  return phone.length > 7 ? `${phone.slice(0, 3)}****${phone.slice(-4)}` : '****';
}

export type ReferralOverview = ReferralAccountRecord & { invitees: number; referrer_bound: boolean };

export async function getReferralOverview(deps: DomainDeps, userId: number): Promise<ReferralOverview> {
  const account = await ensureReferralAccount(deps, userId);
  const count = await sqlOne<{ n: number }>(deps, 'SELECT count(*)::int AS n FROM referral_accounts WHERE referrer_id = $1', [userId]);
  return { ...account, invitees: count?.n ?? 0, referrer_bound: account.referrer_id !== null };
}

export type InviteeView = { user_id: number; email_masked: string; phone_masked: string; bound_at: Date; paid_invoices: number; commission_amount: string };

/** The user's invitees, masked (never their full e-mail or phone), with the commission each brought. */
export async function listInvitees(deps: DomainDeps, userId: number, paging: { page: number; page_size: number }) {
  const [rows, count] = await Promise.all([
    sqlRows<{ user_id: number; email: string | null; phone: string | null; bound_at: Date; paid_invoices: number; commission_amount: string }>(
      deps,
      `SELECT a.user_id, u.email, u.phone, a.bound_at,
              (SELECT count(*)::int FROM commission_entries e WHERE e.user_id = $1 AND e.invitee_id = a.user_id AND e.kind = 'commission') AS paid_invoices,
              (SELECT COALESCE(sum(e.amount), 0) FROM commission_entries e WHERE e.user_id = $1 AND e.invitee_id = a.user_id) AS commission_amount
         FROM referral_accounts a JOIN users u ON u.id = a.user_id WHERE a.referrer_id = $1 ORDER BY a.bound_at DESC, a.user_id DESC LIMIT $2 OFFSET $3`,
      [userId, paging.page_size, (paging.page - 1) * paging.page_size],
    ),
    sqlOne<{ n: number }>(deps, 'SELECT count(*)::int AS n FROM referral_accounts WHERE referrer_id = $1', [userId]),
  ]);
  const list: InviteeView[] = rows.map((r) => ({
    user_id: r.user_id,
    email_masked: maskEmail(r.email),
    phone_masked: maskPhone(r.phone),
    bound_at: r.bound_at,
    paid_invoices: r.paid_invoices,
    commission_amount: formatMoney(r.commission_amount),
  }));
  return { rows: list, total: count?.n ?? 0 };
}

export type CommissionFilter = {
  userId?: number | undefined;
  inviteeId?: number | undefined;
  invoiceId?: number | undefined;
  kind?: CommissionKind | undefined;
  status?: CommissionStatus | undefined;
  page: number;
  page_size: number;
};

export type CommissionView = CommissionEntryRecord & { invoice_no: string };

const COMMISSION_WHERE = `($1::int IS NULL OR e.user_id = $1) AND ($2::int IS NULL OR e.invitee_id = $2) AND ($3::int IS NULL OR e.invoice_id = $3)
    AND ($4::varchar IS NULL OR e.kind = $4) AND ($5::varchar IS NULL OR e.status = $5)`;
const commissionParams = (filter: Omit<CommissionFilter, 'page' | 'page_size'>) => [
  filter.userId ?? null,
  filter.inviteeId ?? null,
  filter.invoiceId ?? null,
  filter.kind ?? null,
  filter.status ?? null,
];

/** A page of commission entries (newest first) and the count of the whole filter; its sum is `summarizeCommissions`. */
export async function listCommissions(deps: DomainDeps, filter: CommissionFilter) {
  const where = COMMISSION_WHERE;
  const params = commissionParams(filter);
  const [rows, sums] = await Promise.all([
    sqlRows<CommissionView>(
      deps,
      `SELECT ${qualified(COMMISSION_ENTRY_COLUMNS, 'e')}, i.invoice_no
         FROM commission_entries e JOIN invoices i ON i.id = e.invoice_id WHERE ${where} ORDER BY e.id DESC LIMIT $6 OFFSET $7`,
      [...params, filter.page_size, (filter.page - 1) * filter.page_size],
    ),
    sqlOne<{ n: number }>(deps, `SELECT count(*)::int AS n FROM commission_entries e WHERE ${where}`, params),
  ]);
  return { rows, total: sums?.n ?? 0 };
}

/** The count and the sum (clawbacks negative) of the commission entries a filter selects. */
export async function summarizeCommissions(deps: DomainDeps, filter: Omit<CommissionFilter, 'page' | 'page_size'>) {
  const sums = await sqlOne<{ n: number; amount: string }>(
    deps,
    `SELECT count(*)::int AS n, COALESCE(sum(e.amount), 0) AS amount FROM commission_entries e WHERE ${COMMISSION_WHERE}`,
    commissionParams(filter),
  );
  return { count: sums?.n ?? 0, amount: formatMoney(sums?.amount ?? 0) };
}

export type ProductRate = { product_id: number; product_name: string; rate: string; updated_at: Date };

const PRODUCT_RATES = 'SELECT r.product_id, p.name AS product_name, r.rate, r.updated_at FROM commission_product_rates r JOIN products p ON p.id = r.product_id';

/** A page of the products' own commission rates, by product id. */
export async function listProductRates(deps: DomainDeps, paging: { page: number; page_size: number }): Promise<{ rows: ProductRate[]; total: number }> {
  const [rows, counted] = await Promise.all([
    sqlRows<ProductRate>(deps, `${PRODUCT_RATES} ORDER BY r.product_id LIMIT $1 OFFSET $2`, [paging.page_size, (paging.page - 1) * paging.page_size]),
    sqlOne<{ n: number }>(deps, 'SELECT count(*)::int AS n FROM commission_product_rates r JOIN products p ON p.id = r.product_id', []),
  ]);
  return { rows, total: counted?.n ?? 0 };
}

/** Sets a product's commission rate (it wins over member levels and the default). */
export async function setProductRate(deps: DomainDeps, productId: number, rate: string): Promise<ProductRate> {
  const product = await sqlOne(deps, 'SELECT id FROM products WHERE id = $1 AND deleted_at IS NULL', [productId]);
  if (!product) throw notFound('商品不存在');
  await sqlOne(
    deps,
    `INSERT INTO commission_product_rates (product_id, rate) VALUES ($1, $2) ON CONFLICT (product_id) DO UPDATE SET rate = EXCLUDED.rate, updated_at = now() RETURNING product_id`,
    [productId, rate],
  );
  return (await sqlOne<ProductRate>(deps, `${PRODUCT_RATES} WHERE r.product_id = $1`, [productId]))!;
}

export async function clearProductRate(deps: DomainDeps, productId: number): Promise<void> {
  const row = await sqlOne(deps, 'DELETE FROM commission_product_rates WHERE product_id = $1 RETURNING product_id', [productId]);
  if (!row) throw notFound('该商品没有单独的返佣比例');
}

export type ReferralAccountFilter = { userId?: number | undefined; page: number; page_size: number };

/** Referral accounts for admins (with invitee counts), newest first. */
export async function listReferralAccounts(deps: DomainDeps, filter: ReferralAccountFilter) {
  const [rows, count] = await Promise.all([
    sqlRows<ReferralAccountRecord & { invitees: number }>(
      deps,
      `SELECT a.user_id, a.code, a.referrer_id, a.bound_at, a.pending_amount, a.available_amount, a.frozen_amount, a.withdrawn_amount, a.created_at, a.updated_at,
              (SELECT count(*)::int FROM referral_accounts x WHERE x.referrer_id = a.user_id) AS invitees
         FROM referral_accounts a WHERE ($1::int IS NULL OR a.user_id = $1) ORDER BY a.user_id DESC LIMIT $2 OFFSET $3`,
      [filter.userId ?? null, filter.page_size, (filter.page - 1) * filter.page_size],
    ),
    sqlOne<{ n: number }>(deps, 'SELECT count(*)::int AS n FROM referral_accounts WHERE ($1::int IS NULL OR user_id = $1)', [filter.userId ?? null]),
  ]);
  return { rows, total: count?.n ?? 0 };
}

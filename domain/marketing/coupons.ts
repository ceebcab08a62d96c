import { randomInt } from 'node:crypto';
import { conflict, notFound, validationError } from '../../lib/errors.js';
import { formatMoney } from '../../lib/money.js';
import type { DomainDeps } from '../deps.js';
import { inTransaction, sqlOne, sqlParams, sqlRows, type Tx, qualified } from '../../db/sql.js';
import { windowCountSql } from '../../db/window-count.js';
import { likePattern } from '../catalogue/sorting.js';
import {
  COUPON_COLUMNS,
  type CouponCampaignRecord,
  type CouponKind,
  type CouponRecord,
  type CouponScene,
  type CouponStatus,
  type CouponUseRecord,
  type CouponUseStatus,
} from '../../db/models/marketing.js';

export type CouponInput = {
  code: string;
  name: string;
  kind: CouponKind;
  value: string;
  min_amount: string;
  product_ids: number[];
  menu_ids: number[];
  new_customers_only: boolean;
  scenes: CouponScene[];
  starts_at: Date | null;
  ends_at: Date | null;
  total_uses: number | null;
  per_user_limit: number | null;
  status: CouponStatus;
  is_public: boolean;
  owner_user_id: number | null;
};

/** Field rules the database also holds (CHECKs), answered as 42200 before it refuses. */
function checkCoupon(input: Omit<CouponInput, 'code'>, used = 0): void {
  const errors: Record<string, string[]> = {};
  if (input.kind === 'percent' && !(Number(input.value) > 0 && Number(input.value) < 100)) errors['value'] = ['折扣百分比必须大于 0 且小于 100'];
  if (input.kind === 'fixed' && !(Number(input.value) > 0)) errors['value'] = ['立减金额必须大于 0'];
  if (Number(input.min_amount) < 0) errors['min_amount'] = ['使用门槛不能为负数'];
  if (input.starts_at && input.ends_at && input.starts_at >= input.ends_at) errors['ends_at'] = ['结束时间必须晚于开始时间'];
  if (input.total_uses !== null && input.total_uses < used) errors['total_uses'] = [`总次数不能少于已使用的 ${used} 次`];
  if (input.scenes.length === 0) errors['scenes'] = ['至少选择一个使用场景'];
  if (Object.keys(errors).length > 0) throw validationError(errors);
}

async function checkOwner(deps: DomainDeps, ownerId: number | null, tx?: Tx): Promise<void> {
  if (ownerId === null) return;
  const user = await sqlOne(deps, 'SELECT id FROM users WHERE id = $1', [ownerId], tx);
  if (!user) throw validationError({ owner_user_id: ['用户不存在'] });
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '23505';
}

const INSERT = `INSERT INTO coupons (code, name, kind, value, min_amount, product_ids, menu_ids, new_customers_only, scenes, starts_at, ends_at,
    total_uses, per_user_limit, status, is_public, owner_user_id, campaign_id)
  VALUES (upper($1), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`;

function insertParams(input: CouponInput, campaignId: number | null): unknown[] {
  return [
    input.code,
    input.name,
    input.kind,
    input.value,
    input.min_amount,
    JSON.stringify(input.product_ids),
    JSON.stringify(input.menu_ids),
    input.new_customers_only,
    JSON.stringify(input.scenes),
    input.starts_at,
    input.ends_at,
    input.total_uses,
    input.per_user_limit,
    input.status,
    input.is_public,
    input.owner_user_id,
    campaignId,
  ];
}

export async function createCoupon(deps: DomainDeps, input: CouponInput): Promise<CouponRecord> {
  checkCoupon(input);
  await checkOwner(deps, input.owner_user_id);
  try {
    const row = await sqlOne<CouponRecord>(deps, `${INSERT} ON CONFLICT (code) DO NOTHING RETURNING ${COUPON_COLUMNS}`, insertParams(input, null));
    if (!row) throw conflict('优惠码已存在');
    return row;
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('优惠码已存在');
    throw error;
  }
}

export async function getCoupon(deps: DomainDeps, id: number): Promise<CouponRecord> {
  const row = await sqlOne<CouponRecord>(deps, `SELECT ${COUPON_COLUMNS} FROM coupons WHERE id = $1`, [id]);
  if (!row) throw notFound('优惠券不存在');
  return row;
}

/**
 * Changes a coupon (its code never changes: uses and invoices name it). The total may not drop
 * below what is already used; the row lock keeps a use from slipping in between.
 */
export async function updateCoupon(deps: DomainDeps, id: number, input: Omit<CouponInput, 'code'>): Promise<CouponRecord> {
  return inTransaction(deps, async (tx) => {
    const current = await sqlOne<{ used: number }>(deps, 'SELECT used FROM coupons WHERE id = $1 FOR UPDATE', [id], tx);
    if (!current) throw notFound('优惠券不存在');
    checkCoupon(input, current.used);
    await checkOwner(deps, input.owner_user_id, tx);
    const row = await sqlOne<CouponRecord>(
      deps,
      `UPDATE coupons SET name = $2, kind = $3, value = $4, min_amount = $5, product_ids = $6, menu_ids = $7, new_customers_only = $8, scenes = $9,
              starts_at = $10, ends_at = $11, total_uses = $12, per_user_limit = $13, status = $14, is_public = $15, owner_user_id = $16, updated_at = now()
        WHERE id = $1 RETURNING ${COUPON_COLUMNS}`,
      // The insert's values from the name to the owner ($2..$16): the code and the campaign never change.
      [id, ...insertParams({ ...input, code: '' }, null).slice(1, 16)],
      tx,
    );
    return row!;
  });
}

export type CouponFilter = { keyword?: string | undefined; status?: CouponStatus | undefined; campaign_id?: number | undefined; page: number; page_size: number };

/**
 * A page of coupons, newest first. Only the filters given become conditions (a `$1 IS NULL OR …`
 * kept the keyword's trigram indexes out of the plan, migration 0050), and the total is counted
 * within the paging window, as every list (lib/paging.ts).
 */
export async function listCoupons(deps: DomainDeps, filter: CouponFilter) {
  const { values, param } = sqlParams();
  const conditions: string[] = [];
  if (filter.keyword) {
    const pattern = param(likePattern(filter.keyword));
    conditions.push(`(code ILIKE ${pattern} OR name ILIKE ${pattern})`);
  }
  if (filter.status) conditions.push(`status = ${param(filter.status)}`);
  if (filter.campaign_id !== undefined) conditions.push(`campaign_id = ${param(filter.campaign_id)}`);
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const countValues = [...values];
  const pageSql = `SELECT ${COUPON_COLUMNS} FROM coupons ${where} ORDER BY id DESC LIMIT ${param(filter.page_size)} OFFSET ${param((filter.page - 1) * filter.page_size)}`;
  const [rows, count] = await Promise.all([
    sqlRows<CouponRecord>(deps, pageSql, values),
    sqlOne<{ n: number }>(deps, windowCountSql(`SELECT 1 FROM coupons ${where}`), countValues),
  ]);
  return { rows, total: count?.n ?? 0 };
}

export type CouponUseView = CouponUseRecord & { code: string; invoice_no: string };

export type CouponUseFilter = { couponId?: number; campaignId?: number; userId?: number; status?: CouponUseStatus | undefined; page: number; page_size: number };

const COUPON_USE_WHERE = `($1::int IS NULL OR u.coupon_id = $1) AND ($2::int IS NULL OR c.campaign_id = $2) AND ($3::int IS NULL OR u.user_id = $3)
    AND ($4::varchar IS NULL OR u.status = $4)`;
const COUPON_USE_FROM = 'FROM coupon_uses u JOIN coupons c ON c.id = u.coupon_id JOIN invoices i ON i.id = u.invoice_id';
const couponUseParams = (filter: Omit<CouponUseFilter, 'page' | 'page_size'>) => [filter.couponId ?? null, filter.campaignId ?? null, filter.userId ?? null, filter.status ?? null];

/** A page of the uses of a coupon or of a campaign's coupons (newest first); their discount sums are `summarizeCouponUses`. */
export async function listCouponUses(deps: DomainDeps, filter: CouponUseFilter) {
  const where = COUPON_USE_WHERE;
  const params = couponUseParams(filter);
  const from = COUPON_USE_FROM;
  const [rows, sums] = await Promise.all([
    sqlRows<CouponUseView>(
      deps,
      `SELECT u.id, u.coupon_id, u.user_id, u.invoice_id, u.scene, u.discount_amount, u.status, u.created_at, u.updated_at, c.code, i.invoice_no
         ${from} WHERE ${where} ORDER BY u.id DESC LIMIT $5 OFFSET $6`,
      [...params, filter.page_size, (filter.page - 1) * filter.page_size],
    ),
    sqlOne<{ n: number }>(deps, `SELECT count(*)::int AS n ${from} WHERE ${where}`, params),
  ]);
  return { rows, total: sums?.n ?? 0 };
}

/** The count of the uses a filter selects and the discount they gave: reserved and final (released ones not summed), and final alone. */
export async function summarizeCouponUses(deps: DomainDeps, filter: Omit<CouponUseFilter, 'page' | 'page_size'>) {
  const sums = await sqlOne<{ n: number; discount: string; final_discount: string }>(
    deps,
    `SELECT count(*)::int AS n, COALESCE(sum(u.discount_amount) FILTER (WHERE u.status <> 'released'), 0) AS discount,
            COALESCE(sum(u.discount_amount) FILTER (WHERE u.status = 'final'), 0) AS final_discount ${COUPON_USE_FROM} WHERE ${COUPON_USE_WHERE}`,
    couponUseParams(filter),
  );
  return { count: sums?.n ?? 0, discount_amount: formatMoney(sums?.discount ?? 0), final_discount_amount: formatMoney(sums?.final_discount ?? 0) };
}

export type CampaignInput = {
  name: string;
  description: string;
  /** `batch`: `count` unique single-use codes; `shared`: one code (`code`) many may use. */
  mode: 'batch' | 'shared';
  count: number;
  code_prefix: string;
  code: string | null;
  coupon: Omit<CouponInput, 'code'>;
};

const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

function drawCode(prefix: string): string {
  let code = prefix.toUpperCase();
  for (let i = 0; i < 10; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

export type CampaignView = CouponCampaignRecord & { coupons: number; uses: number; discount_amount: string };

const CAMPAIGN_VIEW = `SELECT g.id, g.name, g.description, g.created_at, g.updated_at,
    (SELECT count(*)::int FROM coupons c WHERE c.campaign_id = g.id) AS coupons,
    (SELECT count(*)::int FROM coupon_uses u JOIN coupons c ON c.id = u.coupon_id WHERE c.campaign_id = g.id AND u.status <> 'released') AS uses,
    (SELECT COALESCE(sum(u.discount_amount), 0) FROM coupon_uses u JOIN coupons c ON c.id = u.coupon_id WHERE c.campaign_id = g.id AND u.status <> 'released') AS discount_amount
  FROM coupon_campaigns g`;

/**
 * A campaign with its coupons, in one transaction: a batch of unique codes (each usable once
 * in total and once per user; codes drawn at random and inserted with `ON CONFLICT DO NOTHING`,
 * a taken one drawn again) or one shared code with the template's limits.
 */
export async function createCampaign(deps: DomainDeps, input: CampaignInput): Promise<CampaignView> {
  checkCoupon(input.coupon);
  await checkOwner(deps, input.coupon.owner_user_id);
  const id = await inTransaction(deps, async (tx) => {
    const campaign = await sqlOne<{ id: number }>(deps, 'INSERT INTO coupon_campaigns (name, description) VALUES ($1, $2) RETURNING id', [input.name, input.description], tx);
    if (!campaign) throw new Error('campaign not written');
    if (input.mode === 'shared') {
      if (!input.code) throw validationError({ code: ['共享码模式请填写优惠码'] });
      const row = await sqlOne(deps, `${INSERT} ON CONFLICT (code) DO NOTHING RETURNING id`, insertParams({ ...input.coupon, code: input.code }, campaign.id), tx);
      if (!row) throw conflict('优惠码已存在');
      return campaign.id;
    }
    let made = 0;
    for (let attempt = 0; made < input.count && attempt < input.count * 3; attempt++) {
      const row = await sqlOne(
        deps,
        `${INSERT} ON CONFLICT (code) DO NOTHING RETURNING id`,
        insertParams({ ...input.coupon, code: drawCode(input.code_prefix), total_uses: 1, per_user_limit: 1 }, campaign.id),
        tx,
      );
      if (row) made += 1;
    }
    if (made < input.count) throw new Error('campaign codes could not be drawn');
    return campaign.id;
  });
  return getCampaign(deps, id);
}

export async function getCampaign(deps: DomainDeps, id: number): Promise<CampaignView> {
  const row = await sqlOne<CampaignView>(deps, `${CAMPAIGN_VIEW} WHERE g.id = $1`, [id]);
  if (!row) throw notFound('优惠券活动不存在');
  return row;
}

export async function listCampaigns(deps: DomainDeps, paging: { page: number; page_size: number }) {
  const [rows, count] = await Promise.all([
    sqlRows<CampaignView>(deps, `${CAMPAIGN_VIEW} ORDER BY g.id DESC LIMIT $1 OFFSET $2`, [paging.page_size, (paging.page - 1) * paging.page_size]),
    sqlOne<{ n: number }>(deps, 'SELECT count(*)::int AS n FROM coupon_campaigns', []),
  ]);
  return { rows, total: count?.n ?? 0 };
}

export type ClientCouponView = CouponRecord & { my_uses: number };

/**
 * The client's coupons: issued to them, or public (`public: true`), usable now or not; each
 * with how often the user used it (reserved or final).
 */
export async function listClientCoupons(deps: DomainDeps, userId: number, options: { public: boolean; page: number; page_size: number }) {
  const where = options.public ? `c.is_public AND c.owner_user_id IS NULL AND c.status = 'active'` : `c.owner_user_id = $1`;
  const [rows, count] = await Promise.all([
    sqlRows<ClientCouponView>(
      deps,
      `SELECT ${qualified(COUPON_COLUMNS, 'c')}, COALESCE((SELECT u.used FROM coupon_user_uses u WHERE u.coupon_id = c.id AND u.user_id = $1), 0) AS my_uses
         FROM coupons c WHERE ${where} ORDER BY c.id DESC LIMIT $2 OFFSET $3`,
      [userId, options.page_size, (options.page - 1) * options.page_size],
    ),
    sqlOne<{ n: number }>(deps, `SELECT count(*)::int AS n FROM coupons c WHERE ${where} AND $1::int IS NOT NULL`, [userId]),
  ]);
  return { rows, total: count?.n ?? 0 };
}

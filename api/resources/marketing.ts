import { z } from '@hono/zod-openapi';
import { formatMoney } from '../../lib/money.js';
import { formatDateTime } from '../../lib/time.js';
import { maskSecret } from '../../lib/crypto.js';
import {
  COMMISSION_KINDS,
  COMMISSION_STATUSES,
  COUPON_KINDS,
  COUPON_SCENES,
  COUPON_STATUSES,
  COUPON_USE_STATUSES,
  MEMBER_LEVEL_SOURCES,
  WITHDRAWAL_METHODS,
  WITHDRAWAL_STATUSES,
  type CouponRecord,
  type MemberLevelRecord,
  type ReferralAccountRecord,
  type WithdrawalRecord,
} from '../../db/models/marketing.js';
import type { CampaignView, ClientCouponView, CouponUseView } from '../../domain/marketing/coupons.js';
import type { MemberLevelView, UserLevelView } from '../../domain/marketing/member-levels.js';
import type { CommissionView, InviteeView, ProductRate, ReferralOverview } from '../../domain/marketing/referrals.js';
import { WITHDRAWAL_STATUS_LABELS } from '../../domain/marketing/withdrawals.js';
import { dateTimeString, moneyString } from '../schemas.js';

const ids = z.array(z.number().int());
const percent = z.string().openapi({ example: '5.00', description: '百分比，两位小数' });

export const couponSchema = z
  .object({
    id: z.number().int(),
    code: z.string(),
    name: z.string(),
    kind: z.enum(COUPON_KINDS),
    value: moneyString.openapi({ description: 'percent：折扣百分比；fixed：立减金额（元）' }),
    min_amount: moneyString,
    product_ids: ids,
    menu_ids: ids,
    new_customers_only: z.boolean(),
    scenes: z.array(z.enum(COUPON_SCENES)),
    starts_at: dateTimeString.nullable(),
    ends_at: dateTimeString.nullable(),
    total_uses: z.number().int().nullable(),
    per_user_limit: z.number().int().nullable(),
    used: z.number().int(),
    status: z.enum(COUPON_STATUSES),
    is_public: z.boolean(),
    owner_user_id: z.number().int().nullable(),
    campaign_id: z.number().int().nullable(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('Coupon');

/** What a coupon offers, the same in the admin's and the client's view. */
function couponTerms(c: CouponRecord) {
  return {
    code: c.code,
    name: c.name,
    kind: c.kind,
    value: formatMoney(c.value),
    min_amount: formatMoney(c.min_amount),
    product_ids: c.product_ids,
    menu_ids: c.menu_ids,
    new_customers_only: c.new_customers_only,
    scenes: c.scenes,
    starts_at: formatDateTime(c.starts_at),
    ends_at: formatDateTime(c.ends_at),
  };
}

export function couponResource(c: CouponRecord) {
  return {
    id: c.id,
    ...couponTerms(c),
    total_uses: c.total_uses,
    per_user_limit: c.per_user_limit,
    used: c.used,
    status: c.status,
    is_public: c.is_public,
    owner_user_id: c.owner_user_id,
    campaign_id: c.campaign_id,
    created_at: formatDateTime(c.created_at),
  };
}

export const clientCouponSchema = z
  .object({
    code: z.string(),
    name: z.string(),
    kind: z.enum(COUPON_KINDS),
    value: moneyString,
    min_amount: moneyString,
    product_ids: ids,
    menu_ids: ids,
    new_customers_only: z.boolean(),
    scenes: z.array(z.enum(COUPON_SCENES)),
    starts_at: dateTimeString.nullable(),
    ends_at: dateTimeString.nullable(),
    remaining_uses: z.number().int().nullable().openapi({ description: '剩余总次数，null 为不限' }),
    per_user_limit: z.number().int().nullable(),
    my_uses: z.number().int(),
    usable_now: z.boolean(),
  })
  .openapi('ClientCoupon');

export function clientCouponResource(c: ClientCouponView) {
  const now = Date.now();
  const usable =
    c.status === 'active' &&
    (!c.starts_at || c.starts_at.getTime() <= now) &&
    (!c.ends_at || c.ends_at.getTime() > now) &&
    (c.total_uses === null || c.used < c.total_uses) &&
    (c.per_user_limit === null || c.my_uses < c.per_user_limit);
  return {
    ...couponTerms(c),
    remaining_uses: c.total_uses === null ? null : Math.max(c.total_uses - c.used, 0),
    per_user_limit: c.per_user_limit,
    my_uses: c.my_uses,
    usable_now: usable,
  };
}

export const couponUseSchema = z
  .object({
    id: z.number().int(),
    coupon_id: z.number().int(),
    code: z.string(),
    user_id: z.number().int(),
    invoice_id: z.number().int(),
    invoice_no: z.string(),
    scene: z.enum(COUPON_SCENES),
    discount_amount: moneyString,
    status: z.enum(COUPON_USE_STATUSES),
    created_at: dateTimeString.nullable(),
  })
  .openapi('CouponUse');

export function couponUseResource(u: CouponUseView) {
  return {
    id: u.id,
    coupon_id: u.coupon_id,
    code: u.code,
    user_id: u.user_id,
    invoice_id: u.invoice_id,
    invoice_no: u.invoice_no,
    scene: u.scene,
    discount_amount: formatMoney(u.discount_amount),
    status: u.status,
    created_at: formatDateTime(u.created_at),
  };
}

export const campaignSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    coupons: z.number().int(),
    uses: z.number().int().openapi({ description: '未释放的使用次数（预占与已生效）' }),
    discount_amount: moneyString.openapi({ description: '未释放使用的优惠金额合计' }),
    created_at: dateTimeString.nullable(),
  })
  .openapi('CouponCampaign');

export function campaignResource(g: CampaignView) {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    coupons: g.coupons,
    uses: g.uses,
    discount_amount: formatMoney(g.discount_amount),
    created_at: formatDateTime(g.created_at),
  };
}

export const memberLevelSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    discount_percent: percent.openapi({ description: '折扣百分比（10.00 即减 10%）' }),
    product_ids: ids,
    menu_ids: ids,
    commission_rate: percent.openapi({ description: '该等级用户作为邀请人的返佣比例（%）' }),
    min_spend: moneyString.nullable().openapi({ description: '累计消费达到即自动升级；null 为仅管理员指定' }),
    sort_order: z.number().int(),
    users: z.number().int(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('MemberLevel');

export function memberLevelResource(l: MemberLevelView) {
  return {
    id: l.id,
    name: l.name,
    discount_percent: formatMoney(l.discount_percent),
    product_ids: l.product_ids,
    menu_ids: l.menu_ids,
    commission_rate: formatMoney(l.commission_rate),
    min_spend: l.min_spend === null ? null : formatMoney(l.min_spend),
    sort_order: l.sort_order,
    users: l.users,
    created_at: formatDateTime(l.created_at),
  };
}

export const userLevelSchema = z
  .object({
    user_id: z.number().int(),
    level: z.object({ id: z.number().int(), name: z.string(), discount_percent: percent, commission_rate: percent }).nullable(),
    source: z.enum(MEMBER_LEVEL_SOURCES).nullable().openapi({ description: 'admin：管理员指定；spend：按消费自动达到' }),
  })
  .openapi('UserMemberLevel');

export function userLevelResource(v: UserLevelView) {
  const l: MemberLevelRecord | null = v.level;
  return {
    user_id: v.user_id,
    level: l ? { id: l.id, name: l.name, discount_percent: formatMoney(l.discount_percent), commission_rate: formatMoney(l.commission_rate) } : null,
    source: v.source,
  };
}

const amounts = {
  pending_amount: moneyString.openapi({ description: '冻结期内的佣金' }),
  available_amount: moneyString.openapi({ description: '可提现佣金（扣回后可能为负）' }),
  frozen_amount: moneyString.openapi({ description: '提现审核中' }),
  withdrawn_amount: moneyString.openapi({ description: '已提现' }),
};

function amountsOf(a: ReferralAccountRecord) {
  return {
    pending_amount: formatMoney(a.pending_amount),
    available_amount: formatMoney(a.available_amount),
    frozen_amount: formatMoney(a.frozen_amount),
    withdrawn_amount: formatMoney(a.withdrawn_amount),
  };
}

export const referralOverviewSchema = z
  .object({ code: z.string(), link: z.string(), referrer_bound: z.boolean(), invitees: z.number().int(), ...amounts })
  .openapi('ReferralOverview');

export function referralOverviewResource(o: ReferralOverview, baseUrl: string) {
  return {
    code: o.code,
    link: `${baseUrl.replace(/\/$/, '')}/register?ref=${encodeURIComponent(o.code)}`,
    referrer_bound: o.referrer_bound,
    invitees: o.invitees,
    ...amountsOf(o),
  };
}

export const referralAccountSchema = z
  .object({ user_id: z.number().int(), code: z.string(), referrer_id: z.number().int().nullable(), bound_at: dateTimeString.nullable(), invitees: z.number().int(), ...amounts })
  .openapi('ReferralAccount');

export function referralAccountResource(a: ReferralAccountRecord & { invitees: number }) {
  return { user_id: a.user_id, code: a.code, referrer_id: a.referrer_id, bound_at: formatDateTime(a.bound_at), invitees: a.invitees, ...amountsOf(a) };
}

export const inviteeSchema = z
  .object({
    email_masked: z.string(),
    phone_masked: z.string(),
    bound_at: dateTimeString.nullable(),
    paid_invoices: z.number().int(),
    commission_amount: moneyString,
  })
  .openapi('ReferralInvitee');

export function inviteeResource(i: InviteeView) {
  return { email_masked: i.email_masked, phone_masked: i.phone_masked, bound_at: formatDateTime(i.bound_at), paid_invoices: i.paid_invoices, commission_amount: i.commission_amount };
}

export const commissionSchema = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    invoice_no: z.string(),
    kind: z.enum(COMMISSION_KINDS),
    base_amount: moneyString,
    rate: percent,
    amount: moneyString,
    status: z.enum(COMMISSION_STATUSES),
    available_at: dateTimeString.nullable(),
    released_at: dateTimeString.nullable(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('CommissionEntry');

export function commissionResource(e: CommissionView) {
  return {
    id: e.id,
    user_id: e.user_id,
    invoice_no: e.invoice_no,
    kind: e.kind,
    base_amount: formatMoney(e.base_amount),
    rate: formatMoney(e.rate),
    amount: formatMoney(e.amount),
    status: e.status,
    available_at: formatDateTime(e.available_at),
    released_at: formatDateTime(e.released_at),
    created_at: formatDateTime(e.created_at),
  };
}

export const adminCommissionSchema = commissionSchema.extend({ invitee_id: z.number().int(), invoice_id: z.number().int(), idempotency_key: z.string() }).openapi('AdminCommissionEntry');

export function adminCommissionResource(e: CommissionView) {
  return { ...commissionResource(e), invitee_id: e.invitee_id, invoice_id: e.invoice_id, idempotency_key: e.idempotency_key };
}

export const productRateSchema = z
  .object({ product_id: z.number().int(), product_name: z.string(), rate: percent, updated_at: dateTimeString.nullable() })
  .openapi('CommissionProductRate');

export function productRateResource(r: ProductRate) {
  return { product_id: r.product_id, product_name: r.product_name, rate: formatMoney(r.rate), updated_at: formatDateTime(r.updated_at) };
}

export const withdrawalSchema = z
  .object({
    id: z.number().int(),
    withdrawal_no: z.string(),
    user_id: z.number().int(),
    amount: moneyString,
    method: z.enum(WITHDRAWAL_METHODS),
    account_name: z.string(),
    account_no_masked: z.string().openapi({ description: '外部收款账号（掩码）' }),
    status: z.enum(WITHDRAWAL_STATUSES),
    status_label: z.string(),
    reject_reason: z.string(),
    reviewed_at: dateTimeString.nullable(),
    paid_at: dateTimeString.nullable(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('ReferralWithdrawal');

/** External account numbers are shown masked, to the user and to admins alike. */
export function withdrawalResource(w: WithdrawalRecord) {
  return {
    id: w.id,
    withdrawal_no: w.withdrawal_no,
    user_id: w.user_id,
    amount: formatMoney(w.amount),
    method: w.method,
    account_name: w.account_name,
    account_no_masked: w.account_no ? maskSecret(w.account_no) : '',
    status: w.status,
    status_label: WITHDRAWAL_STATUS_LABELS[w.status],
    reject_reason: w.reject_reason,
    reviewed_at: formatDateTime(w.reviewed_at),
    paid_at: formatDateTime(w.paid_at),
    created_at: formatDateTime(w.created_at),
  };
}

/** The count and the sum of the commission entries a filter selects (`/commissions/summary`, both surfaces). */
export const commissionSummarySchema = z
  .object({
    count: z.number().int().openapi({ description: '记录数' }),
    amount: z.string().openapi({ description: '金额合计（元），扣回为负数' }),
  })
  .openapi('CommissionSummary');

/**
 * The stored vocabularies and row shapes of marketing (migration 0020): coupons, campaigns,
 * member levels, referral accounts, the commission ledger and withdrawals. Marketing touches
 * money rows, so its domain code reads and writes them with raw SQL (`db/sql.ts`) like
 * `domain/billing/`; these are the shapes it reads (money columns as two-digit strings).
 */

export const COUPON_KINDS = ['percent', 'fixed'] as const;
export type CouponKind = (typeof COUPON_KINDS)[number];

/** Where a coupon may be used: a new purchase, a renewal, an upgrade. */
export const COUPON_SCENES = ['purchase', 'renewal', 'upgrade'] as const;
export type CouponScene = (typeof COUPON_SCENES)[number];

export const COUPON_STATUSES = ['active', 'disabled'] as const;
export type CouponStatus = (typeof COUPON_STATUSES)[number];

/** `reserved` with the unpaid invoice, `final` once it is paid, `released` when it is cancelled. */
export const COUPON_USE_STATUSES = ['reserved', 'final', 'released'] as const;
export type CouponUseStatus = (typeof COUPON_USE_STATUSES)[number];

export const MEMBER_LEVEL_SOURCES = ['admin', 'spend'] as const;
export type MemberLevelSource = (typeof MEMBER_LEVEL_SOURCES)[number];

export const COMMISSION_KINDS = ['commission', 'clawback'] as const;
export type CommissionKind = (typeof COMMISSION_KINDS)[number];

export const COMMISSION_STATUSES = ['pending', 'available'] as const;
export type CommissionStatus = (typeof COMMISSION_STATUSES)[number];

export const WITHDRAWAL_METHODS = ['balance', 'external'] as const;
export type WithdrawalMethod = (typeof WITHDRAWAL_METHODS)[number];

export const WITHDRAWAL_STATUSES = ['pending', 'approved', 'paid', 'rejected'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

type Money = string;

export type CouponRecord = {
  id: number;
  code: string;
  name: string;
  kind: CouponKind;
  value: Money;
  min_amount: Money;
  product_ids: number[];
  menu_ids: number[];
  new_customers_only: boolean;
  scenes: CouponScene[];
  starts_at: Date | null;
  ends_at: Date | null;
  total_uses: number | null;
  per_user_limit: number | null;
  used: number;
  status: CouponStatus;
  is_public: boolean;
  owner_user_id: number | null;
  campaign_id: number | null;
  created_at: Date;
  updated_at: Date;
};

export const COUPON_COLUMNS = [
  'id', 'code', 'name', 'kind', 'value', 'min_amount', 'product_ids', 'menu_ids', 'new_customers_only', 'scenes', 'starts_at', 'ends_at',
  'total_uses', 'per_user_limit', 'used', 'status', 'is_public', 'owner_user_id', 'campaign_id', 'created_at', 'updated_at',
].join(', ');

export type CouponCampaignRecord = { id: number; name: string; description: string; created_at: Date; updated_at: Date };

export type CouponUseRecord = {
  id: number;
  coupon_id: number;
  user_id: number;
  invoice_id: number;
  scene: CouponScene;
  discount_amount: Money;
  status: CouponUseStatus;
  created_at: Date;
  updated_at: Date;
};

export type MemberLevelRecord = {
  id: number;
  name: string;
  discount_percent: string;
  product_ids: number[];
  menu_ids: number[];
  commission_rate: string;
  min_spend: Money | null;
  sort_order: number;
  created_at: Date;
  updated_at: Date;
};

export const MEMBER_LEVEL_COLUMNS = 'id, name, discount_percent, product_ids, menu_ids, commission_rate, min_spend, sort_order, created_at, updated_at';

export type ReferralAccountRecord = {
  user_id: number;
  code: string;
  referrer_id: number | null;
  bound_at: Date | null;
  pending_amount: Money;
  available_amount: Money;
  frozen_amount: Money;
  withdrawn_amount: Money;
  created_at: Date;
  updated_at: Date;
};

export const REFERRAL_ACCOUNT_COLUMNS =
  'user_id, code, referrer_id, bound_at, pending_amount, available_amount, frozen_amount, withdrawn_amount, created_at, updated_at';

export type CommissionEntryRecord = {
  id: number;
  user_id: number;
  invitee_id: number;
  invoice_id: number;
  refund_id: number | null;
  kind: CommissionKind;
  base_amount: Money;
  rate: string;
  amount: Money;
  status: CommissionStatus;
  available_at: Date;
  released_at: Date | null;
  idempotency_key: string;
  created_at: Date;
};

export const COMMISSION_ENTRY_COLUMNS =
  'id, user_id, invitee_id, invoice_id, refund_id, kind, base_amount, rate, amount, status, available_at, released_at, idempotency_key, created_at';

export type WithdrawalRecord = {
  id: number;
  withdrawal_no: string;
  user_id: number;
  amount: Money;
  method: WithdrawalMethod;
  account_name: string;
  account_no: string;
  status: WithdrawalStatus;
  reject_reason: string;
  account_transaction_id: number | null;
  reviewed_by: number | null;
  reviewed_at: Date | null;
  paid_at: Date | null;
  trace_id: string;
  created_at: Date;
  updated_at: Date;
};

export const WITHDRAWAL_COLUMNS =
  'id, withdrawal_no, user_id, amount, method, account_name, account_no, status, reject_reason, account_transaction_id, reviewed_by, reviewed_at, paid_at, trace_id, created_at, updated_at';

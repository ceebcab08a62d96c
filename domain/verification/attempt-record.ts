/** Stored vocabularies of the verification tables (migration 0018 holds the same CHECKs). */
export const ATTEMPT_STATUSES = ['awaiting_payment', 'pending', 'passed', 'failed', 'expired', 'cancelled'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];
export const ATTEMPT_KINDS = ['face', 'cert_photo'] as const;
export type AttemptKind = (typeof ATTEMPT_KINDS)[number];
export const ATTEMPT_CHARGES = ['free', 'paid', 'restart'] as const;
export type AttemptCharge = (typeof ATTEMPT_CHARGES)[number];
export const HISTORY_EVENTS = ['passed', 'failed', 'expired', 'unbound'] as const;
export type HistoryEvent = (typeof HISTORY_EVENTS)[number];

/** The user's verification state (spec "Verification states"): 1 pending, 2 verified, 3 failed. */
export const VERIFICATION_STATUS = { pending: 1, verified: 2, failed: 3 } as const;

export const ATTEMPT_STATUS_LABELS: Record<AttemptStatus, string> = {
  awaiting_payment: '待支付',
  pending: '认证中',
  passed: '已通过',
  failed: '未通过',
  expired: '已过期',
  cancelled: '已重新发起',
};

/** An attempt as read; the sealed name and ID number are never selected outside the provider call. */
export type AttemptRecord = {
  id: string;
  attempt_no: string;
  user_id: number;
  status: AttemptStatus;
  kind: AttemptKind;
  name_mask: string;
  id_mask: string;
  id_hash: string;
  certify_id: string | null;
  charge: AttemptCharge;
  fee: string;
  invoice_id: string | null;
  restart_of: string | null;
  provider_reached: boolean;
  expires_at: Date | null;
  finished_at: Date | null;
  result_source: string | null;
  reason_code: string | null;
  reason_message: string | null;
  created_at: Date;
};

export const ATTEMPT_COLUMNS = `id, attempt_no, user_id, status, kind, name_mask, id_mask, id_hash, certify_id, charge, fee, invoice_id, restart_of,
  provider_reached, expires_at, finished_at, result_source, reason_code, reason_message, created_at`;

import { z } from '@hono/zod-openapi';
import { formatDateTime } from '../../lib/time.js';
import { formatMoney } from '../../lib/money.js';
import { ATTEMPT_CHARGES, ATTEMPT_KINDS, ATTEMPT_STATUS_LABELS, ATTEMPT_STATUSES, type AttemptRecord, HISTORY_EVENTS } from '../../domain/verification/attempt-record.js';
import type { UserVerification } from '../../domain/verification/client.js';
import type { HistoryItem, VerificationListItem } from '../../domain/verification/admin.js';
import { dateTimeString, moneyString } from '../schemas.js';

/** Whitelist resources of real-name verification: masks only; sealed values and hashes never leave the API. */
export const attemptSchema = z
  .object({
    attempt_no: z.string().openapi({ description: '认证单号（即服务商幂等键 outer_order_no）' }),
    status: z.enum(ATTEMPT_STATUSES),
    status_label: z.string(),
    kind: z.enum(ATTEMPT_KINDS),
    name_mask: z.string().openapi({ example: '张*' }),
    id_mask: z.string().openapi({ example: '1101**********1234' }),
    certify_id: z.string().nullable().openapi({ description: '服务商认证编号；服务商暂不可用时为 null，稍后获取二维码时补开' }),
    charge: z.enum(ATTEMPT_CHARGES),
    fee: moneyString,
    invoice_id: z.number().int().nullable(),
    reason_code: z.string().nullable(),
    reason_message: z.string().nullable(),
    expires_at: dateTimeString.nullable(),
    finished_at: dateTimeString.nullable(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('VerificationAttempt');

export function attemptResource(a: AttemptRecord) {
  return {
    attempt_no: a.attempt_no,
    status: a.status,
    status_label: ATTEMPT_STATUS_LABELS[a.status],
    kind: a.kind,
    name_mask: a.name_mask,
    id_mask: a.id_mask,
    certify_id: a.certify_id,
    charge: a.charge,
    fee: formatMoney(a.fee),
    invoice_id: a.invoice_id === null ? null : Number(a.invoice_id),
    reason_code: a.reason_code,
    reason_message: a.reason_message,
    expires_at: formatDateTime(a.expires_at),
    finished_at: formatDateTime(a.finished_at),
    created_at: formatDateTime(a.created_at),
  };
}

export const verificationUserSchema = {
  is_verified: z.number().int().openapi({ description: '0 未实名，1 已实名' }),
  verification_status: z.number().int().nullable().openapi({ description: '1 认证中，2 已认证，3 未通过；null 从未发起' }),
  verification_name_mask: z.string().nullable(),
  verification_id_mask: z.string().nullable(),
  verified_at: dateTimeString.nullable(),
};

export function verificationUserResource(u: UserVerification) {
  return {
    is_verified: u.is_verified,
    verification_status: u.verification_status,
    verification_name_mask: u.verification_name_mask,
    verification_id_mask: u.verification_id_mask,
    verified_at: formatDateTime(u.verified_at),
  };
}

export const verificationListItemSchema = z
  .object({
    user_id: z.number().int(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    nickname: z.string(),
    ...verificationUserSchema,
    verification_updated_at: dateTimeString.nullable(),
    attempts: z.number().int(),
  })
  .openapi('VerificationListItem');

export function verificationListItemResource(r: VerificationListItem) {
  return {
    user_id: r.user_id,
    email: r.email,
    phone: r.phone,
    nickname: r.nickname,
    ...verificationUserResource(r),
    verification_updated_at: formatDateTime(r.verification_updated_at),
    attempts: r.attempts,
  };
}

export const historyItemSchema = z
  .object({
    id: z.number().int(),
    attempt_no: z.string().nullable(),
    status: z.string().nullable(),
    event: z.enum(HISTORY_EVENTS).nullable(),
    status_after: z.number().int().nullable(),
    name_mask: z.string().nullable(),
    id_mask: z.string().nullable(),
    charge: z.string().nullable(),
    fee: moneyString.nullable(),
    reason: z.string(),
    source: z.string().nullable(),
    admin_id: z.number().int().nullable(),
    admin_name: z.string().nullable(),
    at: dateTimeString.nullable(),
  })
  .openapi('VerificationHistoryItem');

export function historyItemResource(h: HistoryItem) {
  return {
    id: Number(h.id),
    attempt_no: h.attempt_no,
    status: h.status,
    event: h.event,
    status_after: h.status_after,
    name_mask: h.name_mask,
    id_mask: h.id_mask,
    charge: h.charge,
    fee: h.fee === null ? null : formatMoney(h.fee),
    reason: h.reason,
    source: h.source,
    admin_id: h.admin_id,
    admin_name: h.admin_name,
    at: formatDateTime(h.at),
  };
}

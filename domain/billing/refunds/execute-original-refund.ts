import type { DomainDeps } from '../../deps.js';
import type { RefundOutcome } from '../../../workflows/refund/contract.js';
import type { Audit } from '../audit.js';
import { GatewayRetryableError } from '../payments/close-qr-payment.js';
import { invokePaymentPlugin } from '../payments/payment-plugin.js';
import { inTransaction, sqlOne } from '../../../db/sql.js';
import { completeRefund } from './complete-refund.js';
import { REFUND_COLUMNS, type RefundRecord } from '../../../db/models/billing.js';

/**
 * Gateway answers that refuse the refund for certain. Anything else (timeouts, HTTP errors, a
 * busy gateway, an answer whose signature or content cannot be trusted) leaves the outcome
 * unknown: the attempt is repeated with the same out_request_no, which is how we ask.
 */
const DEFINITE_REFUSALS = new Set([
  'invalid_payload',
  'config_invalid',
  'trade_not_exist',
  'invalid_parameter',
  'missing_parameter',
  'condition_not_met',
  'business_failed',
  'trade_status_error',
  'refund_exceeds_paid',
  'refund_request_conflict',
  'invalid_refund_amount',
  'permission_denied',
  'invalid_app_id',
  'invalid_sign_type',
  'merchant_signature_rejected',
  'gateway_unauthorized',
]);

/**
 * One attempt of an `original` refund: `payment.refund` with the refund's own
 * `out_request_no` (the same on every attempt: the gateway refunds once), then the refund's
 * documents. A retryable gateway failure throws (the activity retries); a refusal marks the
 * refund `failed`, which releases its reserved amount. Idempotent: a finished refund answers
 * its outcome.
 */
export async function executeOriginalRefund(deps: DomainDeps, refundNo: string, audit: Audit): Promise<RefundOutcome> {
  const refund = await sqlOne<RefundRecord>(deps, `SELECT ${REFUND_COLUMNS} FROM refunds WHERE refund_no = $1`, [refundNo]);
  if (!refund) throw new Error(`refund ${refundNo} not found`);
  if (refund.status !== 'processing') return refund.status;
  const payment = await sqlOne<{ payment_no: string; plugin_id: number | null }>(deps, 'SELECT payment_no, plugin_id FROM payments WHERE id = $1', [refund.payment_id]);
  if (!payment || payment.plugin_id === null) return failRefund(deps, refund, '原支付插件已卸载，无法原路退款');
  const answer = await invokePaymentPlugin(
    deps,
    payment,
    'payment.refund',
    { out_trade_no: payment.payment_no, refund_amount: refund.third_party_part, out_request_no: refund.out_request_no, refund_reason: refund.reason || undefined },
    audit,
  );
  if (!answer.success) {
    if (DEFINITE_REFUSALS.has(String(answer.data.error_code))) return failRefund(deps, refund, answer.message);
    throw new GatewayRetryableError(`payment.refund of ${refundNo}: ${answer.message}`);
  }
  return inTransaction(deps, async (transaction) => {
    const locked = await sqlOne<RefundRecord>(deps, `SELECT ${REFUND_COLUMNS} FROM refunds WHERE id = $1 FOR UPDATE`, [refund.id], transaction);
    if (!locked || locked.status !== 'processing') return locked?.status === 'failed' ? 'failed' : 'succeeded';
    await completeRefund(deps, locked, audit, transaction);
    return 'succeeded';
  });
}

async function failRefund(deps: DomainDeps, refund: RefundRecord, reason: string): Promise<RefundOutcome> {
  await sqlOne(
    deps,
    `UPDATE refunds SET status = 'failed', failure_reason = $2, updated_at = now() WHERE id = $1 AND status = 'processing' RETURNING id`,
    [refund.id, reason.slice(0, 255)],
  );
  deps.logger.warn({ refundNo: refund.refund_no, reason }, 'original refund refused by the gateway');
  return 'failed';
}

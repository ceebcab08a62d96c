import type { Decimal } from 'decimal.js';
import { AppError, ErrorCode, validationError } from '../../../lib/errors.js';
import { formatMoney, money } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import type { RefundScope } from '../constants.js';
import { REFUND_COLUMNS, type RefundMethod, type RefundRecord } from '../../../db/models/billing.js';
import { INVOICE_KINDS, invoiceTypeNames, invoiceTypesWhere } from '../invoice-kinds.js';
import { lockInvoice } from '../invoices/lock-invoice.js';
import { inTransaction, sqlOne } from '../../../db/sql.js';
import { intentKeys, recordIntent, TRY_NOW_GRACE_MS } from '../../outbox/intents.js';
import { completeRefund, type RefundDocuments } from './complete-refund.js';

export type RefundRequest = {
  userId: number;
  invoiceId: number;
  method: RefundMethod;
  /** Absent: everything still refundable. */
  amount: Decimal | null;
  reason: string;
  scope: RefundScope[];
};

export type CreatedRefund = { refund: RefundRecord; documents: RefundDocuments | null };

/** 40915's message names the refundable types: `仅新购、续费、流量包与升降级账单可退款`. */
const NOT_REFUNDABLE_MESSAGE = `该类型的账单不支持退款（仅${invoiceTypeNames(invoiceTypesWhere('refundable'))}账单可退款）`;

/**
 * An admin refund of a user's invoice (spec: Finance documents). Preconditions: an invoice
 * of a refundable kind (`invoice-kinds.ts`), `paid` or `partially_refunded`, its order
 * `paid` or `completed` (40915 otherwise). The amount defaults to what is left to refund and
 * may not exceed it (40914); what is left counts refunds still processing. The third-party part
 * is refunded first, then the balance part. `balance`: everything goes to the balance, all
 * documents at once. `original`: needs a third-party part left (40917); the refund is
 * `processing` (its third-party part is reserved) until the `refund:<refund_no>` workflow has
 * the gateway refund it with one `out_request_no`; a balance part goes to the balance then. The
 * workflow start is promised by an outbox row written with the refund.
 */
export async function createRefund(deps: DomainDeps, request: RefundRequest, audit: Audit): Promise<CreatedRefund> {
  if (request.amount !== null && request.amount.lte(0)) throw validationError({ amount: ['退款金额必须大于 0'] });
  return inTransaction(deps, async (transaction) => {
    const payment = await sqlOne<{ id: number; plugin_id: number | null }>(
      deps,
      `SELECT id, plugin_id FROM payments WHERE invoice_id = $1 AND settlement = 'invoice' ORDER BY id LIMIT 1 FOR UPDATE`,
      [request.invoiceId],
      transaction,
    );
    const invoice = await lockInvoice(deps, request.invoiceId, request.userId, transaction);
    if (!INVOICE_KINDS[invoice.type].refundable) {
      throw new AppError(ErrorCode.INVOICE_NOT_REFUNDABLE, NOT_REFUNDABLE_MESSAGE);
    }
    if (invoice.status !== 'paid' && invoice.status !== 'partially_refunded') {
      throw new AppError(ErrorCode.INVOICE_NOT_REFUNDABLE, '账单未支付或已全额退款，不能退款', { status: invoice.status });
    }
    const order = await sqlOne<{ status: string }>(deps, 'SELECT status FROM orders WHERE invoice_id = $1 FOR UPDATE', [invoice.id], transaction);
    if (!order || (order.status !== 'paid' && order.status !== 'completed')) {
      throw new AppError(ErrorCode.INVOICE_NOT_REFUNDABLE, '关联订单不是已支付或已完成状态，不能退款', { order_status: order?.status ?? null });
    }
    const reserved = await sqlOne<{ amount: string; third_party: string }>(
      deps,
      `SELECT COALESCE(sum(amount), 0) AS amount, COALESCE(sum(third_party_part), 0) AS third_party
         FROM refunds WHERE invoice_id = $1 AND status IN ('processing', 'succeeded')`,
      [invoice.id],
      transaction,
    );
    const remaining = money(invoice.amount).minus(reserved?.amount ?? 0);
    const amount = request.amount ?? remaining;
    if (remaining.lte(0)) throw new AppError(ErrorCode.REFUND_EXCEEDS_REMAINING, '账单已无可退金额', { remaining: formatMoney(remaining) });
    if (amount.gt(remaining)) {
      throw new AppError(ErrorCode.REFUND_EXCEEDS_REMAINING, `退款金额超过可退金额（剩余可退 ${formatMoney(remaining)} 元）`, { remaining: formatMoney(remaining) });
    }
    const thirdPartyLeft = money(invoice.third_party_amount).minus(reserved?.third_party ?? 0);
    const thirdParty = amount.gt(thirdPartyLeft) ? thirdPartyLeft : amount;
    const balancePart = amount.minus(thirdParty);
    if (request.method === 'original') {
      if (thirdParty.lte(0) || !payment) {
        throw new AppError(ErrorCode.REFUND_METHOD_UNAVAILABLE, '该账单没有可原路退回的第三方支付金额，请使用余额退款');
      }
      if (payment.plugin_id === null) throw new AppError(ErrorCode.REFUND_METHOD_UNAVAILABLE, '原支付插件已卸载，无法原路退款，请使用余额退款');
    }
    const { operator, traceId } = audit;
    const numbered = await sqlOne<{ no: string }>(deps, `SELECT money_document_no('RF', 'refund_no_seq') AS no`, [], transaction);
    if (!numbered) throw new Error('no refund number');
    // The gateway's idempotency key of an original refund: the refund number, reused on every retry.
    const outRequestNo = request.method === 'original' ? numbered.no : null;
    const refund = await sqlOne<RefundRecord>(
      deps,
      `INSERT INTO refunds (refund_no, user_id, invoice_id, payment_id, amount, balance_part, third_party_part, refund_method, status, reason,
          scope, out_request_no, operator_type, operator_id, operator_name, trace_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'processing', $9, $10, $11, $12, $13, $14, $15)
       RETURNING ${REFUND_COLUMNS}`,
      [
        numbered.no,
        invoice.user_id,
        invoice.id,
        thirdParty.gt(0) ? (payment?.id ?? null) : null,
        formatMoney(amount),
        formatMoney(balancePart),
        formatMoney(thirdParty),
        request.method,
        request.reason.slice(0, 255),
        JSON.stringify(request.scope),
        outRequestNo,
        operator.type,
        operator.id,
        operator.name,
        traceId,
      ],
      transaction,
    );
    if (!refund) throw new Error('refund not written');
    if (request.method === 'original') {
      // The gateway refund must run even if the caller dies or cannot reach Temporal after the commit.
      await recordIntent(
        deps,
        { kind: 'start_refund', key: intentKeys.refund(refund.refund_no), payload: { refund_no: refund.refund_no }, delayMs: TRY_NOW_GRACE_MS },
        transaction,
      );
      return { refund, documents: null };
    }
    // A balance refund is completed in the same transaction: nobody ever sees it processing.
    const documents = await completeRefund(deps, refund, audit, transaction);
    return { refund: documents.refund, documents };
  });
}

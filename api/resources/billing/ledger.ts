import { z } from '@hono/zod-openapi';
import { formatMoney } from '../../../lib/money.js';
import { formatDateTime } from '../../../lib/time.js';
import { TRANSACTION_TYPE_LABELS } from '../../../domain/billing/constants.js';
import type { InferAttributes } from 'sequelize';
import { RECHARGE_DIRECTIONS, RECHARGE_ENTRY_TYPES, RECHARGE_SCENES, TRANSACTION_TYPES, type AccountTransactionRow, type RechargeRecordRow } from '../../../db/models/billing.js';
import { dateTimeString, moneyString } from '../../schemas.js';

/** A ledger line as the model reads it (one declaration: the model's). */
export type AccountTransactionSource = InferAttributes<AccountTransactionRow>;

const balanceLogShape = {
  id: z.number().int(),
  type: z.enum(TRANSACTION_TYPES),
  type_label: z.string(),
  amount: moneyString.openapi({ description: '带符号：正数入账（充值、退款、退回），负数出账（支付、扣款）' }),
  balance_after: moneyString,
  currency: z.literal('CNY'),
  invoice_id: z.number().int().nullable(),
  remark: z.string(),
  created_at: dateTimeString.nullable(),
};

export const balanceLogSchema = z.object(balanceLogShape).openapi('BalanceLog');

/** The user's ledger line. */
export function balanceLogResource(t: AccountTransactionSource) {
  return {
    id: t.id,
    type: t.type,
    type_label: TRANSACTION_TYPE_LABELS[t.type],
    amount: formatMoney(t.amount),
    balance_after: formatMoney(t.balance_after),
    currency: 'CNY' as const,
    invoice_id: t.invoice_id,
    remark: t.remark,
    created_at: formatDateTime(t.created_at),
  };
}

export const accountTransactionSchema = z
  .object({
    ...balanceLogShape,
    user_id: z.number().int(),
    seq: z.number().int().openapi({ description: '该用户流水的连续序号' }),
    balance_before: moneyString,
    payment_id: z.number().int().nullable(),
    refund_id: z.number().int().nullable(),
    operator_type: z.string(),
    operator_id: z.number().int().nullable(),
    operator_name: z.string(),
    trace_id: z.string(),
  })
  .openapi('AccountTransaction');

export function accountTransactionResource(t: AccountTransactionSource) {
  return {
    ...balanceLogResource(t),
    user_id: t.user_id,
    seq: t.seq,
    balance_before: formatMoney(t.balance_before),
    payment_id: t.payment_id,
    refund_id: t.refund_id,
    operator_type: t.operator_type,
    operator_id: t.operator_id,
    operator_name: t.operator_name,
    trace_id: t.trace_id,
  };
}

/** A recharge record as the model reads it (one declaration: the model's). */
export type RechargeRecordSource = InferAttributes<RechargeRecordRow>;

export const rechargeRecordSchema = z
  .object({
    id: z.number().int(),
    record_no: z.string(),
    user_id: z.number().int(),
    order_id: z.number().int().nullable(),
    invoice_id: z.number().int(),
    payment_id: z.number().int().nullable(),
    account_transaction_id: z.number().int().nullable(),
    refund_id: z.number().int().nullable(),
    origin_recharge_record_id: z.number().int().nullable(),
    scene: z.enum(RECHARGE_SCENES),
    direction: z.enum(RECHARGE_DIRECTIONS).openapi({ description: 'in 入账；out 退款冲减（金额为负）' }),
    entry_type: z.enum(RECHARGE_ENTRY_TYPES).openapi({ description: 'third_party 第三方支付；admin 后台充值；冲减记录沿用原记录的值' }),
    amount: moneyString,
    offset_amount: moneyString.openapi({ description: '已被冲减的金额（仅入账记录）' }),
    currency: z.literal('CNY'),
    remark: z.string(),
    reason: z.string(),
    operator_type: z.string(),
    operator_id: z.number().int().nullable(),
    operator_name: z.string(),
    trace_id: z.string(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('RechargeRecord');

export function rechargeRecordResource(r: RechargeRecordSource) {
  return {
    id: r.id,
    record_no: r.record_no,
    user_id: r.user_id,
    order_id: r.order_id,
    invoice_id: r.invoice_id,
    payment_id: r.payment_id,
    account_transaction_id: r.account_transaction_id,
    refund_id: r.refund_id,
    origin_recharge_record_id: r.origin_recharge_record_id,
    scene: r.scene,
    direction: r.direction,
    entry_type: r.entry_type,
    amount: formatMoney(r.amount),
    offset_amount: formatMoney(r.offset_amount),
    currency: 'CNY' as const,
    remark: r.remark,
    reason: r.reason,
    operator_type: r.operator_type,
    operator_id: r.operator_id,
    operator_name: r.operator_name,
    trace_id: r.trace_id,
    created_at: formatDateTime(r.created_at),
  };
}

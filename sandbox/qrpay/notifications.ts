import { randomBytes, type KeyObject } from 'node:crypto';
import { formatDateTime } from '../../lib/time.js';
import { notificationSignContent, rsa2Sign } from './signing.js';
import type { SandboxTrade } from './types.js';

/**
 * The unsigned fields of a `trade_status_sync` notification. A trade that is not paid yet is
 * described as paid: forged and tampered notifications claim a payment that did not happen.
 */
export function notificationFields(trade: SandboxTrade, appId: string): Record<string, string> {
  const paid = trade.status === 'TRADE_SUCCESS' || trade.status === 'TRADE_FINISHED';
  const fields: Record<string, string> = {
    notify_type: 'trade_status_sync',
    notify_id: randomBytes(16).toString('hex'),
    notify_time: formatDateTime(new Date()) ?? '',
    charset: 'utf-8',
    version: '1.0',
    app_id: appId,
    out_trade_no: trade.outTradeNo,
    trade_no: trade.tradeNo ?? `FORGED${randomBytes(6).toString('hex')}`,
    trade_status: paid ? trade.status : 'TRADE_SUCCESS',
    subject: trade.subject,
    total_amount: trade.totalAmount,
    receipt_amount: trade.totalAmount,
    buyer_pay_amount: trade.totalAmount,
    gmt_create: trade.gmtCreate,
    gmt_payment: trade.gmtPayment ?? formatDateTime(new Date()) ?? '',
    sign_type: 'RSA2',
  };
  return fields;
}

/** Signs notification fields (`sign` and `sign_type` are not signed) and adds `sign`. */
export function signNotification(fields: Record<string, string>, privateKey: KeyObject): Record<string, string> {
  return { ...fields, sign: rsa2Sign(notificationSignContent(fields), privateKey) };
}

/** A genuinely signed notification whose amounts are changed afterwards. */
export function tamperNotification(signed: Record<string, string>, totalAmount: string): Record<string, string> {
  return { ...signed, total_amount: totalAmount, receipt_amount: totalAmount, buyer_pay_amount: totalAmount };
}

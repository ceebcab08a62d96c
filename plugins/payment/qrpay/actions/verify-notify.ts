import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import type { QrpayConfig } from '../config.js';
import { isTradeStatus, PAID_STATUSES } from '../constants.js';
import { gatewayAmount } from '../payload.js';
import { fail, succeed } from '../result.js';
import { buildSignString, verify } from '../signing.js';

type Rejection = { message: string; reason: string };

/** The received form fields: the payload itself, or `payload.fields` when given that way. */
function formFields(payload: Record<string, unknown>): Record<string, string> | null {
  const nested = payload.fields;
  const source = nested !== null && typeof nested === 'object' && !Array.isArray(nested) ? (nested as Record<string, unknown>) : payload;
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (typeof value !== 'string') return null;
    fields[key] = value;
  }
  return fields;
}

function reject(action: string, rejection: Rejection, diagnostics: Record<string, unknown> = {}): PluginExecuteResult {
  return fail(
    action,
    { message: rejection.message, errorCode: rejection.reason, retryable: false, diagnostics },
    { verified: false, reason: rejection.reason },
  );
}

/**
 * `payment.verify_notify`: payload = the notification's form fields (string map). Checks the
 * signature with the gateway public key (`sign` and `sign_type` not signed), sign_type RSA2 and
 * app_id. Data `{ verified: true, notify_id, out_trade_no, trade_no, trade_status, paid,
 * total_amount, receipt_amount, buyer_pay_amount, gmt_payment }`. Failure data
 * `{ verified: false, reason }` (reason `bad_signature` → answer 40001 / HTTP 401). Whether the
 * trade is ours and the amount matches is the caller's check.
 */
export function verifyNotify(input: PluginExecuteInput, config: QrpayConfig): PluginExecuteResult {
  const { action } = input;
  const fields = formFields(input.payload);
  if (!fields) return reject(action, { message: '支付通知格式无效', reason: 'malformed' });
  const signature = fields.sign ?? '';
  if (signature === '') return reject(action, { message: '支付通知缺少签名', reason: 'bad_signature' });
  if (fields.sign_type !== undefined && fields.sign_type !== 'RSA2') {
    return reject(action, { message: '支付通知签名方式不受支持', reason: 'bad_signature' }, { sign_type: fields.sign_type });
  }
  if (!verify(buildSignString(fields, { excludeSignType: true }), signature, config.gatewayPublicKey)) {
    return reject(action, { message: '支付通知签名校验失败', reason: 'bad_signature' }, { out_trade_no: fields.out_trade_no ?? null });
  }
  if (fields.app_id !== config.appId) {
    return reject(action, { message: '支付通知的应用 ID 与配置不一致', reason: 'app_id_mismatch' }, { app_id: fields.app_id ?? null });
  }
  const status = fields.trade_status;
  const outTradeNo = fields.out_trade_no ?? '';
  if (outTradeNo === '' || !isTradeStatus(status)) {
    return reject(action, { message: '支付通知缺少订单号或交易状态无效', reason: 'malformed' }, { trade_status: status ?? null });
  }
  const totalAmount = gatewayAmount(fields.total_amount);
  if (totalAmount === null) return reject(action, { message: '支付通知金额格式无效', reason: 'malformed' });
  const paid = PAID_STATUSES.includes(status);

  return succeed(
    action,
    paid ? '支付通知校验通过：支付成功' : '支付通知校验通过',
    {
      verified: true,
      notify_id: fields.notify_id ?? null,
      out_trade_no: outTradeNo,
      trade_no: fields.trade_no ?? null,
      trade_status: status,
      paid,
      total_amount: totalAmount,
      receipt_amount: gatewayAmount(fields.receipt_amount),
      buyer_pay_amount: gatewayAmount(fields.buyer_pay_amount),
      gmt_payment: fields.gmt_payment ?? null,
    },
    { notify_type: fields.notify_type ?? null, notify_id: fields.notify_id ?? null },
  );
}

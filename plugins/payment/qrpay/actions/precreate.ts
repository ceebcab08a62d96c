import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import { answerFailure, unexpectedAnswer } from '../answer-failure.js';
import type { QrpayConfig } from '../config.js';
import { QRPAY_GATEWAY_METHODS, QRPAY_NOTIFY_PATH } from '../constants.js';
import { callGateway } from '../gateway-client.js';
import { readAmount, readText, readTradeNo, readUrl } from '../payload.js';
import { fail, invalidPayload, prefixed, succeed } from '../result.js';

const PREFIX = '创建支付二维码失败';

/**
 * `payment.precreate`: payload `{ out_trade_no, total_amount, subject, notify_url? }` →
 * data `{ out_trade_no, qr_code }` (qr_code: the URL the buyer scans).
 */
export async function precreate(input: PluginExecuteInput, config: QrpayConfig): Promise<PluginExecuteResult> {
  const { action, payload } = input;
  const outTradeNo = readTradeNo(payload, 'out_trade_no', '商户订单号');
  if (!outTradeNo.ok) return invalidPayload(action, outTradeNo.message);
  const totalAmount = readAmount(payload, 'total_amount', '支付金额');
  if (!totalAmount.ok) return invalidPayload(action, totalAmount.message);
  const subject = readText(payload, 'subject', '订单标题', 256, true);
  if (!subject.ok || subject.value === null) return invalidPayload(action, subject.ok ? '缺少订单标题' : subject.message);
  const notifyUrl = readUrl(payload, 'notify_url', '异步通知地址');
  if (!notifyUrl.ok) return invalidPayload(action, notifyUrl.message);
  const notify = notifyUrl.value ?? `${input.context.urls.publicBaseUrl.replace(/\/+$/, '')}${QRPAY_NOTIFY_PATH}`;

  const outcome = await callGateway(
    config,
    {
      method: QRPAY_GATEWAY_METHODS.precreate,
      bizContent: { out_trade_no: outTradeNo.value, total_amount: totalAmount.value, subject: subject.value },
      notifyUrl: notify,
    },
    input.context.signal,
  );
  if (!outcome.ok) return fail(action, prefixed(PREFIX, outcome.failure));
  const { answer } = outcome;
  if (answer.code !== '10000') return fail(action, answerFailure(PREFIX, answer));

  const qrCode = answer.fields.qr_code;
  if (typeof qrCode !== 'string' || !/^https?:\/\//.test(qrCode)) return fail(action, unexpectedAnswer(PREFIX, answer, 'qr_code missing or not a URL'));
  if (answer.fields.out_trade_no !== undefined && answer.fields.out_trade_no !== outTradeNo.value) {
    return fail(action, unexpectedAnswer(PREFIX, answer, 'out_trade_no differs from the request'));
  }
  return succeed(action, '支付二维码已生成', { out_trade_no: outTradeNo.value, qr_code: qrCode }, answer.diagnostics);
}

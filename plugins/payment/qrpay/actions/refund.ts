import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import { answerFailure, unexpectedAnswer } from '../answer-failure.js';
import type { QrpayConfig } from '../config.js';
import { QRPAY_GATEWAY_METHODS } from '../constants.js';
import { callGateway } from '../gateway-client.js';
import { gatewayAmount, readAmount, readText, readTradeNo } from '../payload.js';
import { fail, invalidPayload, prefixed, succeed } from '../result.js';

const PREFIX = '退款失败';

/**
 * `payment.refund`: payload `{ out_trade_no, refund_amount, out_request_no, refund_reason? }`.
 * The caller reuses the same out_request_no on every retry of one refund; the gateway then
 * refunds once. Data `{ out_trade_no, trade_no, out_request_no, refund_amount, fund_change
 * (true when this call moved money), refund_fee (cumulative refunded amount of the trade) }`.
 */
export async function refund(input: PluginExecuteInput, config: QrpayConfig): Promise<PluginExecuteResult> {
  const { action, payload } = input;
  const outTradeNo = readTradeNo(payload, 'out_trade_no', '商户订单号');
  if (!outTradeNo.ok) return invalidPayload(action, outTradeNo.message);
  const outRequestNo = readTradeNo(payload, 'out_request_no', '退款请求号');
  if (!outRequestNo.ok) return invalidPayload(action, outRequestNo.message);
  const refundAmount = readAmount(payload, 'refund_amount', '退款金额');
  if (!refundAmount.ok) return invalidPayload(action, refundAmount.message);
  const reason = readText(payload, 'refund_reason', '退款原因', 256, false);
  if (!reason.ok) return invalidPayload(action, reason.message);

  const bizContent: Record<string, string> = {
    out_trade_no: outTradeNo.value,
    refund_amount: refundAmount.value,
    out_request_no: outRequestNo.value,
  };
  if (reason.value) bizContent.refund_reason = reason.value;
  const outcome = await callGateway(config, { method: QRPAY_GATEWAY_METHODS.refund, bizContent }, input.context.signal);
  if (!outcome.ok) return fail(action, prefixed(PREFIX, outcome.failure));
  const { answer } = outcome;
  if (answer.code !== '10000') return fail(action, answerFailure(PREFIX, answer));

  const refundFee = gatewayAmount(answer.fields.refund_fee);
  const fundChange = answer.fields.fund_change;
  if (refundFee === null || (fundChange !== 'Y' && fundChange !== 'N')) {
    return fail(action, unexpectedAnswer(PREFIX, answer, 'refund_fee or fund_change missing'));
  }
  if (answer.fields.out_trade_no !== undefined && answer.fields.out_trade_no !== outTradeNo.value) {
    return fail(action, unexpectedAnswer(PREFIX, answer, 'out_trade_no differs from the request'));
  }
  const tradeNo = typeof answer.fields.trade_no === 'string' && answer.fields.trade_no !== '' ? answer.fields.trade_no : null;
  return succeed(
    action,
    fundChange === 'Y' ? '退款成功' : '退款已处理（该退款请求此前已完成，本次未重复退款）',
    {
      out_trade_no: outTradeNo.value,
      trade_no: tradeNo,
      out_request_no: outRequestNo.value,
      refund_amount: refundAmount.value,
      fund_change: fundChange === 'Y',
      refund_fee: refundFee,
    },
    answer.diagnostics,
  );
}

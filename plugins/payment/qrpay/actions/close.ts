import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import { answerFailure } from '../answer-failure.js';
import type { QrpayConfig } from '../config.js';
import { QRPAY_GATEWAY_METHODS } from '../constants.js';
import { callGateway } from '../gateway-client.js';
import { readTradeNo } from '../payload.js';
import { fail, invalidPayload, prefixed, succeed } from '../result.js';

const PREFIX = '关闭交易失败';

/**
 * `payment.close`: payload `{ out_trade_no }` → data `{ out_trade_no, closed: true, trade_no,
 * trade_status: TRADE_CLOSED | NOT_FOUND }`. A trade the gateway does not know (never scanned)
 * cannot be paid any more either: that is a success with trade_status NOT_FOUND. A paid trade
 * cannot be closed: failure with error_code `trade_status_error` (query it).
 */
export async function close(input: PluginExecuteInput, config: QrpayConfig): Promise<PluginExecuteResult> {
  const { action, payload } = input;
  const outTradeNo = readTradeNo(payload, 'out_trade_no', '商户订单号');
  if (!outTradeNo.ok) return invalidPayload(action, outTradeNo.message);

  const outcome = await callGateway(
    config,
    { method: QRPAY_GATEWAY_METHODS.close, bizContent: { out_trade_no: outTradeNo.value } },
    input.context.signal,
  );
  if (!outcome.ok) return fail(action, prefixed(PREFIX, outcome.failure));
  const { answer } = outcome;
  if (answer.code === '40004' && answer.subCode === 'ACQ.TRADE_NOT_EXIST') {
    return succeed(
      action,
      '交易已关闭（网关侧尚未创建该交易）',
      { out_trade_no: outTradeNo.value, closed: true, trade_no: null, trade_status: 'NOT_FOUND' },
      answer.diagnostics,
    );
  }
  if (answer.code !== '10000') return fail(action, answerFailure(PREFIX, answer));
  const tradeNo = typeof answer.fields.trade_no === 'string' && answer.fields.trade_no !== '' ? answer.fields.trade_no : null;
  return succeed(
    action,
    '交易已关闭',
    { out_trade_no: outTradeNo.value, closed: true, trade_no: tradeNo, trade_status: 'TRADE_CLOSED' },
    answer.diagnostics,
  );
}

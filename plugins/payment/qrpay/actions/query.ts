import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import { answerFailure, unexpectedAnswer } from '../answer-failure.js';
import type { QrpayConfig } from '../config.js';
import { isTradeStatus, PAID_STATUSES, QRPAY_GATEWAY_METHODS, TRADE_STATUS_LABELS } from '../constants.js';
import { callGateway } from '../gateway-client.js';
import { gatewayAmount, readTradeNo } from '../payload.js';
import { fail, invalidPayload, prefixed, succeed } from '../result.js';

const PREFIX = '查询支付状态失败';

/**
 * `payment.query`: payload `{ out_trade_no }` → data `{ out_trade_no, exists, trade_status
 * (NOT_FOUND | WAIT_BUYER_PAY | TRADE_CLOSED | TRADE_SUCCESS | TRADE_FINISHED), paid, pending,
 * closed, trade_no, total_amount, buyer_pay_amount, gmt_payment }`. "Trade does not exist"
 * (the buyer has not scanned yet) is a success with trade_status NOT_FOUND, pending.
 */
export async function query(input: PluginExecuteInput, config: QrpayConfig): Promise<PluginExecuteResult> {
  const { action, payload } = input;
  const outTradeNo = readTradeNo(payload, 'out_trade_no', '商户订单号');
  if (!outTradeNo.ok) return invalidPayload(action, outTradeNo.message);

  const outcome = await callGateway(
    config,
    { method: QRPAY_GATEWAY_METHODS.query, bizContent: { out_trade_no: outTradeNo.value } },
    input.context.signal,
  );
  if (!outcome.ok) return fail(action, prefixed(PREFIX, outcome.failure));
  const { answer } = outcome;

  if (answer.code === '40004' && answer.subCode === 'ACQ.TRADE_NOT_EXIST') {
    return succeed(
      action,
      TRADE_STATUS_LABELS.NOT_FOUND,
      {
        out_trade_no: outTradeNo.value,
        exists: false,
        trade_status: 'NOT_FOUND',
        paid: false,
        pending: true,
        closed: false,
        trade_no: null,
        total_amount: null,
        buyer_pay_amount: null,
        gmt_payment: null,
      },
      answer.diagnostics,
    );
  }
  if (answer.code !== '10000') return fail(action, answerFailure(PREFIX, answer));

  const status = answer.fields.trade_status;
  if (!isTradeStatus(status)) return fail(action, unexpectedAnswer(PREFIX, answer, 'unknown trade_status'));
  if (answer.fields.out_trade_no !== outTradeNo.value) return fail(action, unexpectedAnswer(PREFIX, answer, 'out_trade_no differs from the request'));
  const paid = PAID_STATUSES.includes(status);
  const totalAmount = gatewayAmount(answer.fields.total_amount);
  const buyerPayAmount = gatewayAmount(answer.fields.buyer_pay_amount);
  const tradeNo = typeof answer.fields.trade_no === 'string' && answer.fields.trade_no !== '' ? answer.fields.trade_no : null;
  if (totalAmount === null || tradeNo === null || (paid && buyerPayAmount === null)) {
    return fail(action, unexpectedAnswer(PREFIX, answer, 'trade_no or amounts missing'));
  }
  const gmtPayment = typeof answer.fields.send_pay_date === 'string' && answer.fields.send_pay_date !== '' ? answer.fields.send_pay_date : null;

  return succeed(
    action,
    TRADE_STATUS_LABELS[status],
    {
      out_trade_no: outTradeNo.value,
      exists: true,
      trade_status: status,
      paid,
      pending: status === 'WAIT_BUYER_PAY',
      closed: status === 'TRADE_CLOSED',
      trade_no: tradeNo,
      total_amount: totalAmount,
      buyer_pay_amount: buyerPayAmount,
      gmt_payment: gmtPayment,
    },
    answer.diagnostics,
  );
}

import type { GatewayAnswer } from './gateway-client.js';
import { describeGatewayFailure } from './gateway-errors.js';
import type { Failure } from './result.js';

/** A signed business failure as a Chinese failure, e.g. `退款失败：退款金额超过可退金额`. */
export function answerFailure(prefix: string, answer: GatewayAnswer): Failure {
  const described = describeGatewayFailure(answer.code, answer.subCode);
  return { ...described, message: `${prefix}：${described.message}`, diagnostics: answer.diagnostics };
}

/** A signed success whose content does not fit the request. */
export function unexpectedAnswer(prefix: string, answer: GatewayAnswer, problem: string): Failure {
  return {
    message: `${prefix}：支付网关响应内容无效`,
    errorCode: 'gateway_unexpected_answer',
    retryable: false,
    diagnostics: { ...answer.diagnostics, problem },
  };
}

import type { PluginExecuteInput, PluginExecuteResult } from '../../runtime/contract.js';
import { close } from './actions/close.js';
import { healthCheck } from './actions/health-check.js';
import { precreate } from './actions/precreate.js';
import { query } from './actions/query.js';
import { refund } from './actions/refund.js';
import { verifyNotify } from './actions/verify-notify.js';
import type { QrpayConfig } from './config.js';
import { parseQrpayConfig } from './config.js';
import { fail } from './result.js';

type ActionHandler = (input: PluginExecuteInput, config: QrpayConfig) => Promise<PluginExecuteResult> | PluginExecuteResult;

const ACTIONS: Record<string, ActionHandler> = {
  'payment.precreate': precreate,
  'payment.query': query,
  'payment.refund': refund,
  'payment.close': close,
  'payment.verify_notify': verifyNotify,
  health_check: healthCheck,
};

/** Entry of the `payment/qrpay` plugin (contract: plugins/runtime/contract.ts). */
export async function execute(input: PluginExecuteInput): Promise<PluginExecuteResult> {
  const handler = Object.hasOwn(ACTIONS, input.action) ? ACTIONS[input.action] : undefined;
  if (!handler) return fail(input.action, { message: '扫码支付插件不支持该操作', errorCode: 'unsupported_action', retryable: false });
  const parsed = parseQrpayConfig(input.config);
  if (!parsed.ok) {
    return fail(input.action, { message: parsed.message, errorCode: 'config_invalid', retryable: false, diagnostics: { field: parsed.field } });
  }
  try {
    return await handler(input, parsed.config);
  } catch (err) {
    return fail(input.action, {
      message: '扫码支付插件内部错误',
      errorCode: 'internal_error',
      retryable: false,
      diagnostics: { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) },
    });
  }
}

import { AppError, ErrorCode } from '../../../lib/errors.js';
import { invokePlugin, type PluginInvocation } from '../../../plugins/runtime/invoke.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import type { PaymentRecord } from '../../../db/models/billing.js';

/** A payment's own plugin action (query, close, refund): the plugin that took the payment, even if the default binding changed since. */
export async function invokePaymentPlugin(
  deps: DomainDeps,
  payment: Pick<PaymentRecord, 'plugin_id' | 'payment_no'>,
  action: string,
  payload: Record<string, unknown>,
  audit: Audit,
): Promise<PluginInvocation> {
  if (payment.plugin_id === null) {
    throw new AppError(ErrorCode.REFUND_METHOD_UNAVAILABLE, '该支付单的支付插件已卸载，无法向支付网关操作', { payment_no: payment.payment_no });
  }
  return invokePlugin(deps, {
    domain: 'payment',
    pluginId: payment.plugin_id,
    action,
    payload,
    actor: audit.operator,
    ...(audit.traceId ? { traceId: audit.traceId } : {}),
  });
}

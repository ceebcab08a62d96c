import { invalidInput } from '../client/upstream-error.js';
import { BILLING_PERIODS, toUpstreamCycle } from '../normalise/billing-period.js';
import { parseUpstreamAmount } from '../../../../lib/money.js';
import { asInt, asRecord, type UnknownRecord } from '../read.js';
import type { FinanceAction } from './action-types.js';
import { downstreamForm, readDownstream } from './downstream.js';
import { optionalRecord, readText, requireOneOf, requirePositiveInt } from './payload.js';
import { clearCart } from './purchase-probe.js';

const HOSTNAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;
const CONFIG_MAX = 50;

/** `config` = `{ "<upstream option id>": <sub-option id, or a number for quantity options> }`. */
export function readConfig(payload: UnknownRecord): Record<string, number> {
  const config = optionalRecord(payload, 'config');
  const entries = Object.entries(config);
  if (entries.length > CONFIG_MAX) throw invalidInput(`参数错误：config 最多 ${CONFIG_MAX} 项`);
  const options: Record<string, number> = {};
  for (const [parameter, value] of entries) {
    const n = asInt(value);
    if (!/^\d{1,10}$/.test(parameter) || n === null || n < 0) throw invalidInput(`参数错误：config.${parameter} 必须为非负整数（子选项 ID 或数量）`);
    options[parameter] = n;
  }
  return options;
}

/**
 * Fills the cart of the downstream reference: clears it first (so a retried call never adds a
 * second line, and an existing order is noticed), then `POST /cart/add_to_shop`.
 */
export const preparePurchaseCart: FinanceAction = async ({ input, session }) => {
  const reference = readDownstream(input.payload);
  const productId = requirePositiveInt(input.payload, 'product_id');
  const period = requireOneOf(input.payload, 'billing_period', BILLING_PERIODS);
  const config = readConfig(input.payload);
  const hostname = readText(input.payload, 'hostname', { max: 253, pattern: HOSTNAME });
  const password = readText(input.payload, 'password', { max: 64 });
  const existing = await clearCart(session, reference);
  if (existing) {
    return { message: '上游已有该服务的订单，无需再次下单', data: { cart_ready: false, existing, item_count: 0, amount: null } };
  }
  const envelope = await session.call({
    method: 'POST',
    path: '/cart/add_to_shop',
    form: { ...downstreamForm(reference), pid: productId, billingcycle: toUpstreamCycle(period), qty: 1, configoption: config, hostname, password },
  });
  const data = asRecord(envelope.data) ?? {};
  return {
    message: '已加入上游购物车',
    data: { cart_ready: true, existing: null, item_count: asInt(data['count']) ?? 1, amount: parseUpstreamAmount(data['total']) },
  };
};

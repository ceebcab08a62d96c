import type { SandboxCycle } from '../catalogue-data.js';
import { pricedProduct } from '../prices.js';
import { SANDBOX_MESSAGES } from '../messages.js';
import { CYCLE_LABELS, productCyclePrice, subOptionPricing } from '../pricing.js';
import type { SandboxRoute } from '../route-types.js';

/** `GET /cart/get_product_config?pid=N`: product, stock, cycle prices and option groups. */
export const productConfigRoute: SandboxRoute = {
  method: 'GET',
  path: '/cart/get_product_config',
  auth: 'optional',
  handle({ state, account, query }) {
    const product = pricedProduct(state.prices, Number(query['pid']));
    if (!product) return { status: 406, msg: SANDBOX_MESSAGES.productGone, data: {} };
    const audience = account ? 'member' : 'visitor';
    const cycle = (Object.entries(product.cycles) as [SandboxCycle, string][]).map(([name, amount]) => ({
      billingcycle: name,
      billingcycle_zh: CYCLE_LABELS[name],
      product_price: productCyclePrice(amount, audience),
      setup_fee: '0.00',
    }));
    const configGroups = product.configGroups.map((group) => ({
      id: group.id,
      name: group.name,
      options: group.options.map((option) => ({
        id: option.id,
        option_name: option.name,
        option_type: option.type,
        hidden: option.hidden ? 1 : 0,
        qty_minimum: option.qtyMin,
        qty_maximum: option.qtyMax,
        unit: option.unit,
        sub: option.subs.map((sub) => ({
          id: sub.id,
          option_name: sub.name,
          qty_minimum: sub.qtyMin ?? option.qtyMin,
          qty_maximum: sub.qtyMax ?? option.qtyMax,
          pricing: subOptionPricing(product, sub.monthly, audience),
        })),
      })),
    }));
    return {
      status: 200,
      msg: SANDBOX_MESSAGES.ok,
      data: {
        products: {
          id: product.id,
          gid: product.groupId,
          type: product.type,
          name: product.name,
          description: product.description,
          stock_control: (state.stock.get(product.id) ?? product.stock).control ? 1 : 0,
          qty: Math.max(0, (state.stock.get(product.id) ?? product.stock).qty),
          cycle,
        },
        config_groups: configGroups,
      },
    };
  },
};

import { pricedCatalogue } from '../prices.js';
import { SANDBOX_MESSAGES } from '../messages.js';
import { startingPrice } from '../pricing.js';
import type { SandboxRoute } from '../route-types.js';

/** `GET /cart/all`: groups with their products; a visitor sees visitor prices. */
export const catalogueRoute: SandboxRoute = {
  method: 'GET',
  path: '/cart/all',
  auth: 'optional',
  handle({ state, account }) {
    const audience = account ? 'member' : 'visitor';
    const groups = pricedCatalogue(state.prices).map((group) => ({
      id: group.id,
      name: group.name,
      products: group.products.map((product) => {
        const from = startingPrice(product, audience);
        return {
          id: product.id,
          gid: group.id,
          type: product.type,
          name: product.name,
          description: product.description,
          stock_control: (state.stock.get(product.id) ?? product.stock).control ? 1 : 0,
          qty: Math.max(0, (state.stock.get(product.id) ?? product.stock).qty),
          sale_price: from?.price ?? '0.00',
          billingcycle: from?.cycle ?? 'free',
        };
      }),
    }));
    return { status: 200, msg: SANDBOX_MESSAGES.ok, data: { groups } };
  },
};

import { normaliseProductConfig } from '../normalise/product-config.js';
import type { FinanceAction } from './action-types.js';
import { requirePositiveInt } from './payload.js';

/** `GET /cart/get_product_config?pid=N` → `{ product }` with prices, stock and config option items. */
export const readProductConfig: FinanceAction = async ({ input, session }) => {
  const pid = requirePositiveInt(input.payload, 'pid');
  await session.ensureVerifiedSession();
  const envelope = await session.call({ method: 'GET', path: '/cart/get_product_config', query: { pid } });
  return { message: '已获取上游商品配置', data: { product: normaliseProductConfig(envelope.data) } };
};

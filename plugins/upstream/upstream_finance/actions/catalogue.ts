import { normaliseCatalogue } from '../normalise/catalogue.js';
import type { FinanceAction } from './action-types.js';

/** `GET /cart/all` after making sure the session is accepted (else member prices turn into visitor prices). */
export const readCatalogue: FinanceAction = async ({ session }) => {
  await session.ensureVerifiedSession();
  const envelope = await session.call({ method: 'GET', path: '/cart/all' });
  const groups = normaliseCatalogue(envelope.data);
  const productCount = groups.reduce((sum, group) => sum + group.products.length, 0);
  return { message: '已获取上游商品目录', data: { groups, group_count: groups.length, product_count: productCount } };
};

import type { FinanceSession } from '../client/session.js';
import { normaliseExistingPurchase, type ExistingPurchase } from '../normalise/order.js';
import type { FinanceAction } from './action-types.js';
import { downstreamForm, readDownstream, type DownstreamReference } from './downstream.js';

/** `POST /cart/clear` with the reference: empties its cart and reports an order it already has. */
export async function clearCart(session: FinanceSession, reference: DownstreamReference): Promise<ExistingPurchase | null> {
  const envelope = await session.call({ method: 'POST', path: '/cart/clear', form: downstreamForm(reference) });
  return normaliseExistingPurchase(envelope.data);
}

/**
 * The idempotency probe: does the upstream already hold an order for this downstream
 * reference? `existing` null means nothing was bought for it (and its cart is now empty).
 */
export const probePurchase: FinanceAction = async ({ input, session }) => {
  const reference = readDownstream(input.payload);
  const existing = await clearCart(session, reference);
  return { message: existing ? '上游已有该服务的订单，请继续处理该订单' : '上游没有该服务的订单', data: { existing } };
};

import { AppError, ErrorCode } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { cachedRead } from './catalogue-cache.js';
import { findListedProduct, type ListedProduct } from './quote.js';

/**
 * The quote's product load through the catalogue cache ("absent or unlisted" is cached as null).
 * Invoice creation must not use this: it re-reads the product in its own transaction.
 */
export async function loadListedProduct(deps: DomainDeps, productId: number): Promise<ListedProduct | null> {
  return cachedRead(deps, `listed:${productId}`, async () => {
    try {
      return await findListedProduct(deps, productId);
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.NOT_FOUND) return null;
      throw error;
    }
  });
}

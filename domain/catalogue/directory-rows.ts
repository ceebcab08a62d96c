import type { Transaction } from 'sequelize';
import { notFound, validationError } from '../../lib/errors.js';
import type { ProductCategoryRow, ProductGroupRow, ProductMenuRow } from '../../db/models/catalogue.js';
import type { DomainDeps } from '../deps.js';

/** `lock`: true or 'update' for FOR UPDATE (the row changes), 'share' for FOR SHARE (the row must not change meanwhile). */
type Options = { transaction?: Transaction | undefined; lock?: boolean | 'update' | 'share' };

function findOptions(options: Options) {
  return {
    ...(options.transaction ? { transaction: options.transaction } : {}),
    ...(options.lock && options.transaction ? { lock: options.lock === 'share' ? options.transaction.LOCK.SHARE : options.transaction.LOCK.UPDATE } : {}),
  };
}

/** Live (not deleted) directory rows; null when absent or deleted. */
export async function findMenu(deps: DomainDeps, id: number, options: Options = {}): Promise<ProductMenuRow | null> {
  return deps.db.models.ProductMenu.findOne({ where: { id, deleted_at: null }, ...findOptions(options) });
}

export async function findMenuByCode(deps: DomainDeps, code: string, options: Options = {}): Promise<ProductMenuRow | null> {
  return deps.db.models.ProductMenu.findOne({ where: { code, deleted_at: null }, ...findOptions(options) });
}

export async function findGroup(deps: DomainDeps, id: number, options: Options = {}): Promise<ProductGroupRow | null> {
  return deps.db.models.ProductGroup.findOne({ where: { id, deleted_at: null }, ...findOptions(options) });
}

export async function findCategory(deps: DomainDeps, id: number, options: Options = {}): Promise<ProductCategoryRow | null> {
  return deps.db.models.ProductCategory.findOne({ where: { id, deleted_at: null }, ...findOptions(options) });
}

/** A row addressed by the path: 40400 when absent. */
export function orNotFound<T>(row: T | null, message: string): T {
  if (!row) throw notFound(message);
  return row;
}

/** A row referenced from a request body: 42200 naming the field when absent. */
export function orInvalid<T>(row: T | null, field: string, message: string): T {
  if (!row) throw validationError({ [field]: [message] });
  return row;
}

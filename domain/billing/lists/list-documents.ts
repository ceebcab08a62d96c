import type { Attributes, Model, ModelStatic, WhereOptions } from 'sequelize';
import { countWithinWindow } from '../../../db/window-count.js';
import { notFound } from '../../../lib/errors.js';

export type Sort<K extends string> = { key: K; direction: 'ASC' | 'DESC' };

export type DocumentListQuery<K extends string> = {
  page: number;
  page_size: number;
  sort?: Sort<K> | undefined;
  [filter: string]: unknown;
};

/**
 * A page of money documents: equality filters on the whitelisted columns that the query
 * carries, the sort key from the route's whitelist (default newest first), id as tiebreaker;
 * the total counted within the paging window (lib/paging.ts). The rows are the columns alone
 * (`raw`), not model instances: a list only reads them, and building 20 instances cost more than
 * the page's statement (the client invoice list pair, issue #35).
 */
export async function listDocuments<M extends Model, K extends string>(
  model: ModelStatic<M>,
  query: DocumentListQuery<K>,
  filterColumns: readonly string[],
): Promise<{ rows: Attributes<M>[]; total: number }> {
  const where: Record<string, unknown> = {};
  for (const column of filterColumns) {
    const value = query[column];
    if (value !== undefined && value !== null && value !== '') where[column] = value;
  }
  const sort = query.sort ?? { key: 'id', direction: 'DESC' as const };
  const [rows, total] = await Promise.all([
    model.findAll({
      where: where as WhereOptions,
      order: sort.key === 'id' ? [['id', sort.direction]] : [[sort.key, sort.direction], ['id', 'DESC']],
      limit: query.page_size,
      offset: (query.page - 1) * query.page_size,
      raw: true,
    }) as Promise<Attributes<M>[]>,
    countWithinWindow(model, where),
  ]);
  return { rows, total };
}

/** One document by id (and owner, when given); 40400 otherwise. */
export async function findDocument<M extends Model>(model: ModelStatic<M>, id: number, label: string, userId?: number): Promise<M> {
  const where: Record<string, unknown> = { id };
  if (userId !== undefined) where.user_id = userId;
  const row = await model.findOne({ where: where as WhereOptions });
  if (!row) throw notFound(`${label}不存在`);
  return row;
}

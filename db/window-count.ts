import { QueryTypes, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import { LIST_WINDOW } from '../lib/paging.js';

/**
 * The count of a list within its paging window (lib/paging.ts): `select` is the list's query
 * without paging (`SELECT 1 FROM … WHERE …`, with the list's ORDER BY where its index should
 * be walked); at most `window` of its rows are read, and the answer is at most `window`.
 */
export function windowCountSql(select: string, window: number = LIST_WINDOW): string {
  return `SELECT count(*)::int AS n FROM (${select} LIMIT ${window}) AS windowed`;
}

type SelectQueryGenerator = {
  selectQuery(table: unknown, options: { where: WhereOptions; attributes: string[] }, model: ModelStatic<Model>): string;
};

/** `windowCountSql` of a model's rows matching `where` (Sequelize's own WHERE, values escaped by it). */
export async function countWithinWindow<M extends Model>(model: ModelStatic<M>, where: WhereOptions): Promise<number> {
  const sequelize = model.sequelize;
  if (!sequelize) throw new Error(`model ${model.name} is not defined on a Sequelize instance`);
  const generator = sequelize.getQueryInterface().queryGenerator as unknown as SelectQueryGenerator;
  const select = generator
    .selectQuery(model.getTableName(), { where, attributes: [model.primaryKeyAttribute] }, model as unknown as ModelStatic<Model>)
    .replace(/;\s*$/, '');
  const rows = await sequelize.query<{ n: number }>(windowCountSql(select), { type: QueryTypes.SELECT });
  return rows[0]?.n ?? 0;
}

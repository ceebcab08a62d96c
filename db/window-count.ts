import { QueryTypes, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import { LIST_WINDOW } from '../lib/paging.js';

/**
 * The count of a list within the paging window (lib/paging.ts): `select` is the list's query
 * without order or paging (`SELECT 1 FROM … WHERE …`); at most LIST_WINDOW + 1 of its rows are
 * read, and the answer is at most LIST_WINDOW.
 */
export function windowCountSql(select: string): string {
  return `SELECT least(count(*), ${LIST_WINDOW})::int AS n FROM (${select} LIMIT ${LIST_WINDOW + 1}) AS windowed`;
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

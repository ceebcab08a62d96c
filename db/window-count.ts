import { QueryTypes, type Model, type ModelStatic } from 'sequelize';
import { LIST_WINDOW } from '../lib/paging.js';
import { sqlParams } from './sql.js';

/**
 * The count of a list within its paging window (lib/paging.ts): `select` is the list's query
 * without paging (`SELECT 1 FROM … WHERE …`, with the list's ORDER BY where its index should
 * be walked); at most `window` of its rows are read, and the answer is at most `window`.
 */
export function windowCountSql(select: string, window: number = LIST_WINDOW): string {
  return `SELECT count(*)::int AS n FROM (${select} LIMIT ${window}) AS windowed`;
}

/**
 * `windowCountSql` of a model's rows whose columns equal the values of `equals` (attribute
 * names, as a model's `where`): one plain statement, the values bound (`$n`), the names those
 * of the model's own attributes (anything else throws).
 */
export async function countWithinWindow(model: ModelStatic<Model>, equals: Readonly<Record<string, unknown>>): Promise<number> {
  const sequelize = model.sequelize;
  if (!sequelize) throw new Error(`model ${model.name} is not defined on a Sequelize instance`);
  const attributes = model.getAttributes();
  const { values, param } = sqlParams();
  const conditions = Object.entries(equals).map(([name, value]) => {
    const column = attributes[name]?.field;
    if (!column) throw new Error(`model ${model.name} has no attribute ${name}`);
    return `${quoted(column)} = ${param(value)}`;
  });
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  const select = `SELECT 1 FROM ${quoted(model.tableName)}${where}`;
  const rows = await sequelize.query<{ n: number }>(windowCountSql(select), { bind: values, type: QueryTypes.SELECT });
  return rows[0]?.n ?? 0;
}

const quoted = (name: string): string => `"${name.replace(/"/g, '""')}"`;

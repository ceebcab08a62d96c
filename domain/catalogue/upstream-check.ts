import type { Transaction } from 'sequelize';
import { sqlRows } from '../../db/sql.js';
import { validationError } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';

export type ProductScope = { menuId: number } | { groupId: number } | { categoryId: number } | { productIds: number[] };

function scopeSql(scope: ProductScope): { sql: string; bind: unknown[] } {
  if ('menuId' in scope) return { sql: 'p.first_product_group_id = $1', bind: [scope.menuId] };
  if ('groupId' in scope) return { sql: 'p.second_product_group_id = $1', bind: [scope.groupId] };
  if ('categoryId' in scope) return { sql: 'p.product_group_id = $1', bind: [scope.categoryId] };
  return { sql: 'p.id = ANY($1::int[])', bind: [scope.productIds] };
}

/**
 * A product of type `other` is driven by its upstream plugin, so it must be bound to an
 * installed, enabled upstream plugin. Before products become `other` (menu type change, a
 * move under an `other` menu, a bulk bind), the live products in `scope` without such a
 * binding are named in a 42200 on `field`.
 */
export async function assertUpstreamBound(deps: DomainDeps, scope: ProductScope, field: string, transaction: Transaction): Promise<void> {
  const { sql, bind } = scopeSql(scope);
  const rows = await sqlRows<{ id: number; name: string }>(
    deps,
    `SELECT p.id, p.name FROM products p
       LEFT JOIN product_upstream_bindings b ON b.product_id = p.id
       LEFT JOIN plugins pl ON pl.id = b.plugin_id AND pl.domain = 'upstream' AND pl.status = 'enabled'
      WHERE ${sql} AND p.deleted_at IS NULL AND pl.id IS NULL
      ORDER BY p.id`,
    bind,
    transaction,
  );
  if (rows.length === 0) return;
  const names = rows.slice(0, 5).map((r) => `${r.name}（#${r.id}）`).join('、');
  throw validationError({
    [field]: [`类型为“其他”的商品必须绑定已启用的上游插件，以下 ${rows.length} 个商品未绑定：${names}${rows.length > 5 ? ' 等' : ''}`],
  });
}

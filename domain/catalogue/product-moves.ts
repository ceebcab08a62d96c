import type { Transaction } from 'sequelize';
import { sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import type { AuditAction, AuditRecord, FieldChanges } from './audit.js';
import type { ProductType } from '../../db/models/catalogue.js';

export type MoveScope = { menuId: number } | { groupId: number } | { categoryId: number };

/** Where the products of a scope now belong: their menu (and so type), and for a category move its group. */
export type MoveTarget = { menuId: number; type: ProductType; groupId?: number };

type Moved = { id: number; old_menu: number; old_group: number | null; old_type: ProductType; new_group: number | null };

/**
 * Re-derives the placement of every live product in `scope` after its menu's type changed or
 * its group/category moved: `first_product_group_id`, `product_type`, `service_type_code` (and
 * `second_product_group_id` when a category moves). Runs in the caller's transaction; returns
 * one audit record per product that actually changed.
 */
export async function replaceProducts(deps: DomainDeps, scope: MoveScope, target: MoveTarget, action: AuditAction, transaction: Transaction): Promise<AuditRecord[]> {
  const where = 'menuId' in scope ? 'p.first_product_group_id = $1' : 'groupId' in scope ? 'p.second_product_group_id = $1' : 'p.product_group_id = $1';
  const scopeId = 'menuId' in scope ? scope.menuId : 'groupId' in scope ? scope.groupId : scope.categoryId;
  const bind: unknown[] = [scopeId, target.menuId, target.type];
  if (target.groupId !== undefined) bind.push(target.groupId);
  const setGroup = target.groupId === undefined ? '' : ', second_product_group_id = $4';
  // The self-join reads each row as it was before this statement, for the audit's old values.
  const rows = await sqlRows<Moved>(
    deps,
    `UPDATE products p SET first_product_group_id = $2, product_type = $3, service_type_code = $3${setGroup}, updated_at = now()
       FROM products old
      WHERE p.id = old.id AND ${where} AND p.deleted_at IS NULL
      RETURNING p.id, old.first_product_group_id AS old_menu, old.second_product_group_id AS old_group, old.product_type AS old_type,
                p.second_product_group_id AS new_group`,
    bind,
    transaction,
  );
  const records: AuditRecord[] = [];
  for (const row of rows) {
    const changes: FieldChanges = {};
    if (row.old_menu !== target.menuId) changes.first_product_group_id = { old: row.old_menu, new: target.menuId };
    if (row.old_group !== row.new_group) changes.second_product_group_id = { old: row.old_group, new: row.new_group };
    if (row.old_type !== target.type) {
      changes.product_type = { old: row.old_type, new: target.type };
      changes.service_type_code = { old: row.old_type, new: target.type };
    }
    if (Object.keys(changes).length > 0) records.push({ entity_type: 'product', entity_id: row.id, action, changes });
  }
  return records;
}

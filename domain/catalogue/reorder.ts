import type { Actor } from '../../lib/actor.js';
import { sqlRows } from '../../db/sql.js';
import { type FieldErrors, validationError } from '../../lib/errors.js';
import type { CatalogueEntityType } from '../../db/models/catalogue.js';
import type { DomainDeps } from '../deps.js';
import { type AuditRecord, recordCatalogueAudit } from './audit.js';
import { publishCatalogueChange } from './catalogue-events.js';

export type ReorderItem = { id: number; sort_order: number };

const TABLES: Record<Exclude<CatalogueEntityType, 'product'>, { table: string; label: string }> = {
  menu: { table: 'product_menus', label: '一级菜单' },
  group: { table: 'product_groups', label: '二级分组' },
  category: { table: 'product_categories', label: '三级分类' },
};

/**
 * Sets `sort_order` of the listed rows, all or nothing: every id must be a live row of the
 * table and appear once, otherwise 42200 naming `items.<i>.id` and nothing changes. Rows not
 * listed keep their order. Returns the listed rows with their new order.
 */
export async function reorderDirectory(
  deps: DomainDeps,
  entity: Exclude<CatalogueEntityType, 'product'>,
  items: ReorderItem[],
  operator: Actor,
): Promise<ReorderItem[]> {
  const { table, label } = TABLES[entity];
  const errors: FieldErrors = {};
  const seen = new Map<number, number>();
  items.forEach((item, i) => {
    if (seen.has(item.id)) (errors[`items.${i}.id`] ??= []).push(`编号 ${item.id} 重复出现`);
    seen.set(item.id, i);
  });
  if (Object.keys(errors).length > 0) throw validationError(errors);
  await deps.db.sequelize.transaction(async (transaction) => {
    const rows = await sqlRows<{ id: number; sort_order: number }>(
      deps,
      `SELECT id, sort_order FROM ${table} WHERE id = ANY($1::int[]) AND deleted_at IS NULL ORDER BY id FOR UPDATE`,
      [items.map((i) => i.id)],
      transaction,
    );
    const current = new Map(rows.map((r) => [r.id, r.sort_order]));
    items.forEach((item, i) => {
      if (!current.has(item.id)) (errors[`items.${i}.id`] ??= []).push(`${label} ${item.id} 不存在`);
    });
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const changed = items.filter((item) => current.get(item.id) !== item.sort_order);
    if (changed.length === 0) return;
    await sqlRows(
      deps,
      `UPDATE ${table} t SET sort_order = v.sort_order, updated_at = now()
         FROM (SELECT unnest($1::int[]) AS id, unnest($2::int[]) AS sort_order) v
        WHERE t.id = v.id`,
      [changed.map((c) => c.id), changed.map((c) => c.sort_order)],
      transaction,
    );
    const records: AuditRecord[] = changed.map((c) => ({
      entity_type: entity,
      entity_id: c.id,
      action: 'reorder',
      changes: { sort_order: { old: current.get(c.id), new: c.sort_order } },
    }));
    await recordCatalogueAudit(deps, records, operator, transaction);
    await publishCatalogueChange(deps, transaction);
  });
  return items;
}

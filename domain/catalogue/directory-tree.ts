import { sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import type { ProductType } from '../../db/models/catalogue.js';

export type TreeMenu = { id: number; code: string; name: string; product_type: ProductType; is_visible: number; sort_order: number; group_count: number; product_count: number };
export type TreeGroup = { id: number; first_product_group_id: number; name: string; is_visible: number; sort_order: number; category_count: number; product_count: number };
export type TreeCategory = { id: number; second_product_group_id: number; name: string; is_visible: number; sort_order: number; product_count: number };

export type DirectoryTree = { menus: TreeMenu[]; groups: TreeGroup[]; categories: TreeCategory[] };

/**
 * The whole directory for the admin selector as three flat lists, each node naming its parent
 * by id (the nesting limit forbids menus → groups → categories as nested arrays), in display
 * order, with live counts. Three queries whatever the size.
 */
export async function loadDirectoryTree(deps: DomainDeps): Promise<DirectoryTree> {
  const q = <T extends object>(sql: string) => sqlRows<T>(deps, sql, []);
  const [menus, groups, categories] = await Promise.all([
    q<TreeMenu>(
      `SELECT m.id, m.code, m.name, m.product_type, m.is_visible, m.sort_order,
              COALESCE(g.n, 0)::int AS group_count, COALESCE(p.n, 0)::int AS product_count
         FROM product_menus m
         LEFT JOIN (SELECT first_product_group_id AS id, count(*) AS n FROM product_groups WHERE deleted_at IS NULL GROUP BY 1) g ON g.id = m.id
         LEFT JOIN (SELECT first_product_group_id AS id, count(*) AS n FROM products WHERE deleted_at IS NULL GROUP BY 1) p ON p.id = m.id
        WHERE m.deleted_at IS NULL ORDER BY m.sort_order, m.id`,
    ),
    q<TreeGroup>(
      `SELECT g.id, g.first_product_group_id, g.name, g.is_visible, g.sort_order,
              COALESCE(c.n, 0)::int AS category_count, COALESCE(p.n, 0)::int AS product_count
         FROM product_groups g
         LEFT JOIN (SELECT second_product_group_id AS id, count(*) AS n FROM product_categories WHERE deleted_at IS NULL GROUP BY 1) c ON c.id = g.id
         LEFT JOIN (SELECT second_product_group_id AS id, count(*) AS n FROM products WHERE deleted_at IS NULL GROUP BY 1) p ON p.id = g.id
        WHERE g.deleted_at IS NULL ORDER BY g.first_product_group_id, g.sort_order, g.id`,
    ),
    q<TreeCategory>(
      `SELECT c.id, c.second_product_group_id, c.name, c.is_visible, c.sort_order, COALESCE(p.n, 0)::int AS product_count
         FROM product_categories c
         LEFT JOIN (SELECT product_group_id AS id, count(*) AS n FROM products WHERE deleted_at IS NULL GROUP BY 1) p ON p.id = c.id
        WHERE c.deleted_at IS NULL ORDER BY c.second_product_group_id, c.sort_order, c.id`,
    ),
  ]);
  return { menus, groups, categories };
}

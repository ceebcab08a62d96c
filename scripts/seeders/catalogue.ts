import type { Actor } from '../../lib/actor.js';
import { createCategory } from '../../domain/catalogue/categories.js';
import { createGroup } from '../../domain/catalogue/groups.js';
import { createMenu } from '../../domain/catalogue/menus.js';
import { createProduct } from '../../domain/catalogue/product-write.js';
import type { DomainDeps } from '../../domain/deps.js';
import { DEMO_CATALOGUE, prices } from './catalogue-data.js';

const SEEDER: Actor = { type: 'system', id: null, name: '演示数据' };

export type CatalogueSeedResult = { created: string[]; counts: { menus: number; groups: number; categories: number; products: number } };

/**
 * The demo catalogue for `npm run dev`: a menu per product type, groups, categories and
 * products with realistic options and prices, written through the catalogue's own domain
 * functions (so they are valid and audited as "演示数据"). Every step looks its row up first
 * (menus by code, the rest by name under their parent, deleted products included), so a
 * second run changes nothing. The `other` product is seeded only when an upstream plugin is
 * enabled (it must be bound to one). `copy` > 0 seeds an independent copy (bench and size
 * tests use ten of them).
 */
export async function seedDemoCatalogue(deps: DomainDeps, options: { copy?: number } = {}): Promise<CatalogueSeedResult> {
  const copy = options.copy ?? 0;
  const suffix = copy > 0 ? `_${copy}` : '';
  const label = copy > 0 ? ` ${copy}` : '';
  const { ProductMenu, ProductGroup, ProductCategory, Product, Plugin } = deps.db.models;
  const counts = { menus: 0, groups: 0, categories: 0, products: 0 };
  const upstream = await Plugin.findOne({ where: { domain: 'upstream', status: 'enabled' }, order: [['id', 'ASC']] });

  for (const demo of DEMO_CATALOGUE) {
    if (demo.product_type === 'other' && !upstream) continue;
    const code = `demo_${demo.key}${suffix}`;
    let menu = await ProductMenu.findOne({ where: { code } });
    if (!menu) {
      const created = await createMenu(deps, { code, name: `${demo.name}${label}`, icon: demo.icon, product_type: demo.product_type }, SEEDER);
      menu = await ProductMenu.findByPk(created.id, { rejectOnEmpty: true });
      counts.menus += 1;
    }
    for (const g of demo.groups) {
      let group = await ProductGroup.findOne({ where: { first_product_group_id: menu.id, name: g.name, deleted_at: null } });
      if (!group) {
        const created = await createGroup(deps, { first_product_group_id: menu.id, name: g.name, description: g.description }, SEEDER);
        group = await ProductGroup.findByPk(created.id, { rejectOnEmpty: true });
        counts.groups += 1;
      }
      for (const c of g.categories) {
        let category = await ProductCategory.findOne({ where: { second_product_group_id: group.id, name: c.name, deleted_at: null } });
        if (!category) {
          const created = await createCategory(deps, { second_product_group_id: group.id, name: c.name }, SEEDER);
          category = await ProductCategory.findByPk(created.id, { rejectOnEmpty: true });
          counts.categories += 1;
        }
        for (const [i, item] of c.products.entries()) {
          const exists = await Product.count({ where: { first_product_group_id: menu.id, name: item.name } });
          if (exists > 0) continue;
          await createProduct(
            deps,
            {
              product_group_id: category.id,
              name: item.name,
              display_name: item.display_name,
              description: item.description,
              pricing: prices(item.monthly),
              config_options: item.config_options,
              sort_order: i + 1,
              ...(item.stock === undefined ? {} : { stock_control: true, stock_qty: item.stock }),
              ...(demo.product_type === 'other' && upstream ? { plugin_id: upstream.id, upstream_product_id: '101', config_template: { billingcycle: 'monthly' } } : {}),
            },
            SEEDER,
          );
          counts.products += 1;
        }
      }
    }
  }
  const created = Object.values(counts).some((n) => n > 0)
    ? [`catalogue${label}: ${counts.menus} menus, ${counts.groups} groups, ${counts.categories} categories, ${counts.products} products`]
    : [];
  return { created, counts };
}

import type { Actor } from '../../lib/actor.js';
import { createCategory } from '../../domain/catalogue/categories.js';
import { addProductAlternate, setUpstreamRouting } from '../../domain/catalogue/product-alternates.js';
import { createGroup } from '../../domain/catalogue/groups.js';
import type { DomainDeps } from '../../domain/deps.js';
import { pullSupplierProducts } from '../../domain/suppliers/product-import.js';
import { createSupplier, updateSupplier } from '../../domain/suppliers/suppliers.js';
import { SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';

export const DEMO_SUPPLIER_CODE = 'sandbox-upstream';
/** The demo's second supplier (issue #38), on the second upstream sandbox. */
export const DEMO_BACKUP_SUPPLIER = { code: 'backup', name: '备用云（演示）' } as const;
/** The upstream product both suppliers sell and the demo cloud server is bound to twice: the Hong Kong cloud server. */
export const DEMO_SHARED_UPSTREAM_PRODUCT = '101';

const SEEDER: Actor = { type: 'system', id: null, name: '演示数据' };

/** Demo menus (by code) and the sandbox products imported under a "上游直供" group in each. */
const IMPORTS = [
  { menuCode: 'demo_cloud', category: '香港与美国', upstreamIds: [101, 102] },
  { menuCode: 'demo_baremetal', category: '独立服务器', upstreamIds: [201] },
];

/**
 * Dev: a supplier for the upstream sandbox (its address refreshed on every start) and some of
 * the sandbox's products imported, with a 20% markup, into the demo menus, so the whole path
 * (browse, quote, invoice, pay, provision, console) works in `npm run dev`. Idempotent: the
 * import skips products already bound.
 */
export async function seedDemoSupplier(deps: DomainDeps, upstreamBaseUrl: string): Promise<string[]> {
  const created: string[] = [];
  const { Supplier, ProductMenu, ProductGroup, ProductCategory } = deps.db.models;
  let supplier = await Supplier.findOne({ where: { code: DEMO_SUPPLIER_CODE } });
  if (supplier) {
    supplier = await updateSupplier(deps, supplier.id, { base_url: upstreamBaseUrl });
  } else {
    supplier = await createSupplier(deps, {
      code: DEMO_SUPPLIER_CODE,
      name: '沙箱上游供应商',
      interface_type: 'upstream_finance_api',
      base_url: upstreamBaseUrl,
      account: SANDBOX_CREDENTIALS.upstream.username,
      api_key: SANDBOX_CREDENTIALS.upstream.apiKey,
    });
    created.push(`supplier:${DEMO_SUPPLIER_CODE}`);
  }
  for (const entry of IMPORTS) {
    const menu = await ProductMenu.findOne({ where: { code: entry.menuCode } });
    if (!menu) continue;
    let group = await ProductGroup.findOne({ where: { first_product_group_id: menu.id, name: '上游直供', deleted_at: null } });
    if (!group) {
      const made = await createGroup(deps, { first_product_group_id: menu.id, name: '上游直供', description: '由上游供应商实时开通' }, SEEDER);
      group = await ProductGroup.findByPk(made.id, { rejectOnEmpty: true });
    }
    let category = await ProductCategory.findOne({ where: { second_product_group_id: group.id, name: entry.category, deleted_at: null } });
    if (!category) {
      const made = await createCategory(deps, { second_product_group_id: group.id, name: entry.category }, SEEDER);
      category = await ProductCategory.findByPk(made.id, { rejectOnEmpty: true });
    }
    const pulled = await pullSupplierProducts(
      deps,
      supplier.id,
      { upstream_product_ids: entry.upstreamIds, product_group_id: category.id, price_rule: { type: 'percent', value: '20' }, status: 'active' },
      { type: 'system', id: null, name: '演示数据' },
    );
    for (const p of pulled.imported) created.push(`product:${p.name}`);
  }
  return created;
}

/**
 * Dev: a second supplier, `备用云（演示）` on the second upstream sandbox (its address refreshed on
 * every start), and the demo cloud server (the import of upstream product 101 from the first
 * supplier) bound to that supplier's 101 as well (`addProductAlternate`, the admin route's
 * checks), with the import's 20 % markup. When it adds the binding it also sets the product's
 * routing policy to `lowest_cost`: the second sandbox sells 101 cheaper, so the routing decision
 * picks it (docs/fulfilment.md "Several suppliers per product"). Idempotent: the supplier by
 * code, the binding by (product, supplier, upstream product); a policy an admin changed later
 * stays. Runs after `seedDemoSupplier`.
 */
export async function seedDemoBackupSupplier(deps: DomainDeps, upstreamBaseUrl: string): Promise<string[]> {
  const created: string[] = [];
  const { Supplier, ProductUpstreamBinding, ProductUpstreamAlternate, Product } = deps.db.models;
  let supplier = await Supplier.findOne({ where: { code: DEMO_BACKUP_SUPPLIER.code } });
  if (supplier) {
    supplier = await updateSupplier(deps, supplier.id, { base_url: upstreamBaseUrl });
  } else {
    supplier = await createSupplier(deps, {
      ...DEMO_BACKUP_SUPPLIER,
      interface_type: 'upstream_finance_api',
      base_url: upstreamBaseUrl,
      account: SANDBOX_CREDENTIALS.upstream2.username,
      api_key: SANDBOX_CREDENTIALS.upstream2.apiKey,
      remark: '演示：与沙箱上游供应商销售同一商品，价格更低',
    });
    created.push(`supplier:${DEMO_BACKUP_SUPPLIER.code}`);
  }
  const primary = await Supplier.findOne({ where: { code: DEMO_SUPPLIER_CODE } });
  if (!primary) return created;
  const first = await ProductUpstreamBinding.findOne({
    where: { supplier_id: primary.id, upstream_product_id: DEMO_SHARED_UPSTREAM_PRODUCT },
    order: [['product_id', 'ASC']],
  });
  if (!first || !(await Product.findOne({ where: { id: first.product_id, deleted_at: null } }))) return created;
  const bound = await ProductUpstreamAlternate.findOne({
    where: { product_id: first.product_id, supplier_id: supplier.id, upstream_product_id: DEMO_SHARED_UPSTREAM_PRODUCT },
  });
  if (bound) return created;
  await addProductAlternate(
    deps,
    first.product_id,
    { supplier_id: supplier.id, upstream_product_id: DEMO_SHARED_UPSTREAM_PRODUCT, price_rule: { type: 'percent', value: '20' } },
    SEEDER,
  );
  await setUpstreamRouting(deps, first.product_id, 'lowest_cost', SEEDER);
  created.push(`product-binding:${first.product_id}→${DEMO_BACKUP_SUPPLIER.code}/${DEMO_SHARED_UPSTREAM_PRODUCT} (lowest_cost)`);
  return created;
}

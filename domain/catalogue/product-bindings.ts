import { sqlRows, statement, type Tx } from '../../db/sql.js';
import type { UpstreamRoutingPolicy } from '../../db/models/catalogue.js';
import type { DomainDeps } from '../deps.js';

/**
 * A product's upstream bindings, in order (issue #38, docs/fulfilment.md "Several suppliers per
 * product"): the first is the spec's single binding (`product_upstream_bindings`, priority 0,
 * `id` null), then the further ones (`product_upstream_alternates`, priority 1, 2, …).
 */
export type ProductBinding = {
  /** The further binding's id; null for the first binding (the product's own row). */
  id: number | null;
  priority: number;
  supplier_id: number | null;
  supplier_code: string | null;
  supplier_name: string | null;
  supplier_status: 'active' | 'disabled' | null;
  plugin_id: number | null;
  plugin_key: string | null;
  provider_key: string;
  upstream_product_id: string;
  config_template: Record<string, unknown>;
  price_rule: Record<string, unknown>;
};

/** How admins read each routing policy. */
export const UPSTREAM_ROUTING_LABELS: Record<UpstreamRoutingPolicy, string> = {
  priority: '按优先级：可开通的绑定中优先级最高者',
  lowest_cost: '按成本：可开通的绑定中上游成本最低者（成本相同按优先级）',
};

export type ProductBindings = { productId: number; policy: UpstreamRoutingPolicy; bindings: ProductBinding[] };

/** The product's policy and every binding with its supplier and plugin, priority order; no row: no such live product. */
const PRODUCT_BINDINGS = statement(
  `WITH product AS (SELECT id, upstream_routing FROM products WHERE id = $1 AND deleted_at IS NULL),
   bound AS (
     SELECT NULL::int AS id, 0 AS priority, b.supplier_id, b.plugin_id, b.provider_key, b.upstream_product_id, b.config_template, b.price_rule
       FROM product_upstream_bindings b JOIN product ON product.id = b.product_id
     UNION ALL
     SELECT a.id, a.priority, a.supplier_id, a.plugin_id, a.provider_key, a.upstream_product_id, a.config_template, a.price_rule
       FROM product_upstream_alternates a JOIN product ON product.id = a.product_id)
   SELECT product.upstream_routing AS policy, bound.id, bound.priority, bound.supplier_id, s.code AS supplier_code, s.name AS supplier_name,
          s.status AS supplier_status, bound.plugin_id, pl.key AS plugin_key, bound.provider_key, bound.upstream_product_id,
          bound.config_template, bound.price_rule
     FROM product LEFT JOIN bound ON true
     LEFT JOIN suppliers s ON s.id = bound.supplier_id
     LEFT JOIN plugins pl ON pl.id = COALESCE(s.plugin_id, bound.plugin_id)
    ORDER BY bound.priority NULLS LAST`,
);

type BindingRow = Omit<ProductBinding, 'priority'> & { policy: UpstreamRoutingPolicy; priority: number | null };

/**
 * A product's routing policy and its upstream bindings in order (the first binding, then the
 * further ones by priority): the one read of "all the bindings" (routing, the admin detail).
 * Null when the product does not exist or is deleted.
 */
export async function productBindings(deps: DomainDeps, productId: number, tx?: Tx): Promise<ProductBindings | null> {
  const rows = await sqlRows<BindingRow>(deps, PRODUCT_BINDINGS, [productId], tx);
  const first = rows[0];
  if (!first) return null;
  const bindings = rows
    .filter((r): r is BindingRow & { priority: number } => r.priority !== null)
    .map(({ policy: _policy, ...binding }) => binding);
  return { productId, policy: first.policy, bindings };
}

/** How a binding is named to admins: `供应商「名称」` (or its number), and the upstream product. */
export function bindingLabel(binding: Pick<ProductBinding, 'supplier_id' | 'supplier_name'>): string {
  if (binding.supplier_id === null) return '未指定供应商的绑定';
  return `供应商「${binding.supplier_name ?? `#${binding.supplier_id}`}」`;
}

import { z } from '@hono/zod-openapi';
import { UPSTREAM_ROUTING_POLICIES } from '../../db/models/catalogue.js';
import { type ProductBinding, type ProductBindings, UPSTREAM_ROUTING_LABELS } from '../../domain/catalogue/product-bindings.js';

/**
 * A product's upstream bindings in order (issue #38): the first binding (priority 0, `id` null,
 * edited through the product itself) and the further ones (priority 1, 2, …). Every field is a
 * scalar, so the list fits the nesting limit inside the product detail: the config template is
 * JSON text, the price rule two fields.
 */
export const productBindingItemSchema = z
  .object({
    id: z.number().int().nullable().openapi({ description: '备用绑定编号；首个绑定（商品自身的上游绑定）为 null' }),
    priority: z.number().int().openapi({ description: '0 为首个绑定，其后 1、2、…' }),
    first: z.boolean().openapi({ description: '是否为首个绑定（规范中的唯一绑定，经商品修改接口维护）' }),
    supplier_id: z.number().int().nullable(),
    supplier_code: z.string().nullable(),
    supplier_name: z.string().nullable(),
    supplier_status: z.enum(['active', 'disabled']).nullable(),
    plugin_id: z.number().int().nullable(),
    plugin_key: z.string().nullable(),
    provider_key: z.string().openapi({ description: '真实的上游提供方标识（不做别名归一）' }),
    upstream_product_id: z.string(),
    config_template_json: z.string().openapi({ description: '配置模板（平铺对象的 JSON 文本，键按字母顺序）' }),
    price_rule_type: z.enum(['percent', 'fixed']).nullable().openapi({ description: '加价规则：percent 按比例，fixed 基础价格加固定金额；未设置为 null' }),
    price_rule_value: z.string().nullable(),
  })
  .openapi('ProductUpstreamBinding');

export const productRoutingSchema = z
  .object({
    product_id: z.number().int(),
    routing_policy: z.enum(UPSTREAM_ROUTING_POLICIES).openapi({ description: 'priority 按优先级；lowest_cost 按上游成本最低（相同按优先级）' }),
    routing_policy_label: z.string(),
    bindings: z.array(productBindingItemSchema),
  })
  .openapi('ProductUpstreamRouting');

export function productBindingResource(b: ProductBinding): z.infer<typeof productBindingItemSchema> {
  const rule = b.price_rule as { type?: unknown; value?: unknown };
  const ruleType = rule.type === 'percent' || rule.type === 'fixed' ? rule.type : null;
  return {
    id: b.id,
    priority: b.priority,
    first: b.id === null,
    supplier_id: b.supplier_id,
    supplier_code: b.supplier_code,
    supplier_name: b.supplier_name,
    supplier_status: b.supplier_status,
    plugin_id: b.plugin_id,
    plugin_key: b.plugin_key,
    provider_key: b.provider_key,
    upstream_product_id: b.upstream_product_id,
    // Keys sorted: JSONB keeps its own key order, the text should not depend on it.
    config_template_json: JSON.stringify(Object.fromEntries(Object.entries(b.config_template ?? {}).sort(([x], [y]) => x.localeCompare(y)))),
    price_rule_type: ruleType,
    price_rule_value: ruleType && typeof rule.value === 'string' ? rule.value : null,
  };
}

export function productRoutingResource(read: ProductBindings): z.infer<typeof productRoutingSchema> {
  return {
    product_id: read.productId,
    routing_policy: read.policy,
    routing_policy_label: UPSTREAM_ROUTING_LABELS[read.policy],
    bindings: read.bindings.map(productBindingResource),
  };
}

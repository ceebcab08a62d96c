import { z } from '@hono/zod-openapi';
import { formatDateTime } from '../../lib/time.js';
import { auditListPath } from '../../domain/catalogue/audit.js';
import { BILLING_PERIODS } from '../../domain/catalogue/billing-periods.js';
import { adminConfigView } from '../../domain/catalogue/config-view.js';
import { CONFIG_OPTION_FIELDS } from '../../domain/catalogue/config-options.js';
import type { AdminProductDetail, ProductListRow } from '../../domain/catalogue/product-admin-read.js';
import { readPluginSchemas } from '../../domain/catalogue/plugin-schemas.js';
import { primaryPrice } from '../../domain/catalogue/pricing-map.js';
import { productTypeLabel, resolveTemplates } from '../../domain/catalogue/product-types.js';
import { STOCK_STATUSES, stockStatus } from '../../domain/catalogue/stock.js';
import { dateTimeString, moneyString } from '../schemas.js';
import { auditLineResource, auditLineSchema, productTypeSchema } from './catalogue.js';
import { productBindingItemSchema, productBindingResource } from './product-bindings.js';
import { UPSTREAM_ROUTING_POLICIES } from '../../db/models/catalogue.js';
import { UPSTREAM_ROUTING_LABELS } from '../../domain/catalogue/product-bindings.js';

/** Whitelist resources of admin products: list items (about 20 fields) and the detail's modules. */
export const pricingMapSchema = z
  .partialRecord(z.enum(BILLING_PERIODS), moneyString)
  .openapi('PricingMap', { description: '计费周期 → 两位小数的金额字符串（元），平铺结构', example: { monthly: '19.90', annually: '199.00' } });

const stockStatusSchema = z.enum(STOCK_STATUSES).openapi({ description: 'unlimited 不限库存；in_stock 有货；out_of_stock 售罄' });

export function groupPath(row: { menu_name: string; group_name: string | null; category_name: string | null }): string {
  return [row.menu_name, row.group_name, row.category_name].filter((v): v is string => Boolean(v)).join(' / ');
}

export const productListItemSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    display_name: z.string(),
    product_type: productTypeSchema,
    product_type_label: z.string(),
    first_product_group_id: z.number().int(),
    second_product_group_id: z.number().int().nullable(),
    product_group_id: z.number().int().nullable(),
    group_path: z.string().openapi({ description: '一级菜单 / 二级分组 / 三级分类' }),
    primary_price: moneyString.nullable().openapi({ description: '第一个有价格的计费周期的价格（按 月、季、半年、年、两年、三年、一次性 的顺序）' }),
    primary_billing_period: z.enum(BILLING_PERIODS).nullable(),
    stock_control: z.boolean(),
    stock_qty: z.number().int(),
    stock_status: stockStatusSchema,
    status: z.enum(['active', 'hidden']),
    sort_order: z.number().int(),
    plugin_key: z.string().nullable().openapi({ description: '绑定的上游插件标识' }),
    created_at: dateTimeString.nullable(),
    updated_at: dateTimeString.nullable(),
  })
  .openapi('ProductListItem');

export function productListItemResource(row: ProductListRow) {
  const primary = primaryPrice(row.pricing);
  return {
    id: row.id,
    name: row.name,
    display_name: row.display_name,
    product_type: row.product_type,
    product_type_label: productTypeLabel(row.product_type),
    first_product_group_id: row.first_product_group_id,
    second_product_group_id: row.second_product_group_id,
    product_group_id: row.product_group_id,
    group_path: groupPath(row),
    primary_price: primary?.amount ?? null,
    primary_billing_period: primary?.billing_period ?? null,
    stock_control: row.stock_control,
    stock_qty: row.stock_qty,
    stock_status: stockStatus(row.stock_control, row.stock_qty),
    status: row.status,
    sort_order: row.sort_order,
    plugin_key: row.plugin_key,
    created_at: formatDateTime(row.created_at),
    updated_at: formatDateTime(row.updated_at),
  };
}

const flatMapSchema = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.union([z.string(), z.number(), z.boolean(), z.null()]))]))
  .openapi({ description: '平铺对象：值为文本、数字、布尔值或它们的数组' });

export const optionItemSchema = z.object({
  field: z.enum(CONFIG_OPTION_FIELDS),
  name: z.string(),
  option_type: z.number().int(),
  input: z.enum(['choice', 'quantity']).openapi({ description: 'choice：提交子选项编号；quantity：提交 qty_minimum..qty_maximum 之间的数量' }),
  hidden: z.boolean(),
  qty_minimum: z.number().int(),
  qty_maximum: z.number().int(),
  unit: z.string(),
  default_value: z.number().int().nullable().openapi({ description: '未提交该字段时报价使用的值' }),
  choice_count: z.number().int(),
});

export const optionChoiceSchema = z.object({
  field: z.enum(CONFIG_OPTION_FIELDS),
  id: z.number().int(),
  value: z.string(),
  label: z.string(),
  family: z.string().nullable().openapi({ description: '仅操作系统：系列（version 中 ^ 之前的部分）' }),
  version: z.string().nullable(),
  qty_minimum: z.number().int().nullable(),
  qty_maximum: z.number().int().nullable(),
  pricing: pricingMapSchema.openapi({ description: '在商品基础价格之上加收（数量型按每单位）' }),
});

export const adminOptionItemSchema = optionItemSchema.extend({ parameter: z.string().openapi({ description: '上游配置项编号' }) }).openapi('ConfigOptionItemAdmin');

export const adminConfigOptionsSchema = z
  .object({ items: z.array(adminOptionItemSchema), choices: z.array(optionChoiceSchema) })
  .openapi('ProductConfigOptions', {
    description: '配置项的平铺形式（响应嵌套不超过 3 层）：items 每个配置项一行，choices 每个子选项一行并以 field 指明所属配置项；按 field 合并即得到提交时使用的 config_options 数组',
  });

export function adminConfigOptionsResource(detail: Pick<AdminProductDetail, 'config_options'>) {
  return adminConfigView(detail.config_options);
}

export const productDetailSchema = z
  .object({
    id: z.number().int(),
    base: z.object({
      id: z.number().int(),
      name: z.string(),
      display_name: z.string(),
      description: z.string(),
      product_type: productTypeSchema,
      product_type_label: z.string(),
      service_type_code: productTypeSchema,
      first_product_group_id: z.number().int(),
      first_product_group_code: z.string(),
      second_product_group_id: z.number().int().nullable(),
      product_group_id: z.number().int().nullable(),
      group_path: z.string(),
      status: z.enum(['active', 'hidden']),
      sort_order: z.number().int(),
      created_at: dateTimeString.nullable(),
      updated_at: dateTimeString.nullable(),
    }),
    pricing: z.object({
      currency: z.literal('CNY'),
      prices: pricingMapSchema,
      primary_price: moneyString.nullable(),
      primary_billing_period: z.enum(BILLING_PERIODS).nullable(),
    }),
    provisioning: z.object({
      purchase_template: z.string().nullable().openapi({ description: '商品上显式指定的购买页模板（为空时按类型解析）' }),
      console_template: z.string().nullable(),
      resolved_purchase_template: z.string().nullable().openapi({ description: '按“显式模板 → 类型内置模板 → 上游插件 → 无”解析的结果' }),
      resolved_console_template: z.string().nullable(),
      purchasable_online: z.boolean(),
      console_available: z.boolean(),
      stock_control: z.boolean(),
      stock_qty: z.number().int(),
      stock_status: stockStatusSchema,
    }),
    upstream_binding: z.object({
      bound: z.boolean(),
      plugin_id: z.number().int().nullable(),
      plugin_key: z.string().nullable(),
      plugin_slug: z.string().nullable(),
      plugin_name: z.string().nullable(),
      plugin_status: z.enum(['installed', 'enabled', 'disabled']).nullable(),
      provider_key: z.string().nullable().openapi({ description: '真实的上游提供方标识（不做别名归一）' }),
      supplier_id: z.number().int().nullable(),
      upstream_product_id: z.string().nullable(),
      config_template: flatMapSchema.nullable(),
      provisioning_policy: flatMapSchema.nullable(),
      routing_policy: z.enum(UPSTREAM_ROUTING_POLICIES).openapi({ description: '多个上游绑定之间的选择策略：priority 按优先级；lowest_cost 按上游成本最低（相同按优先级）' }),
      routing_policy_label: z.string(),
      bindings: z.array(productBindingItemSchema).openapi({ description: '全部上游绑定，按顺序：首个绑定（即上面的字段）在前，其后为备用绑定' }),
      bindings_path: z.string().openapi({ description: '备用上游绑定的管理接口' }),
    }),
    options: z.object({
      items: z.array(adminOptionItemSchema),
      choice_count: z.number().int(),
      choices_path: z.string().openapi({ description: '含子选项与价格的完整配置项（平铺形式）' }),
    }),
    audit: z.object({
      total: z.number().int(),
      list_path: z.string().openapi({ description: '该商品完整的分页变更记录' }),
      entries: z.array(auditLineSchema),
    }),
  })
  .openapi('ProductDetail');

export function productDetailResource(detail: AdminProductDetail) {
  const primary = primaryPrice(detail.pricing);
  const schemas = readPluginSchemas(detail.plugin_status === 'enabled' && detail.plugin_domain === 'upstream' ? detail.plugin_extra : null);
  const templates = resolveTemplates(
    detail.product_type,
    { purchase: detail.purchase_template, console: detail.console_template },
    { purchaseSchema: schemas.purchase, consoleSchema: schemas.console },
  );
  const config = adminConfigView(detail.config_options);
  return {
    id: detail.id,
    base: {
      id: detail.id,
      name: detail.name,
      display_name: detail.display_name,
      description: detail.description,
      product_type: detail.product_type,
      product_type_label: productTypeLabel(detail.product_type),
      service_type_code: detail.service_type_code,
      first_product_group_id: detail.first_product_group_id,
      first_product_group_code: detail.first_product_group_code,
      second_product_group_id: detail.second_product_group_id,
      product_group_id: detail.product_group_id,
      group_path: groupPath(detail),
      status: detail.status,
      sort_order: detail.sort_order,
      created_at: formatDateTime(detail.created_at),
      updated_at: formatDateTime(detail.updated_at),
    },
    pricing: { currency: 'CNY' as const, prices: detail.pricing, primary_price: primary?.amount ?? null, primary_billing_period: primary?.billing_period ?? null },
    provisioning: {
      purchase_template: detail.purchase_template,
      console_template: detail.console_template,
      resolved_purchase_template: templates.purchase_template,
      resolved_console_template: templates.console_template,
      purchasable_online: templates.purchasable_online,
      console_available: templates.console_available,
      stock_control: detail.stock_control,
      stock_qty: detail.stock_qty,
      stock_status: stockStatus(detail.stock_control, detail.stock_qty),
    },
    upstream_binding: {
      bound: detail.has_binding,
      plugin_id: detail.binding_plugin_id,
      plugin_key: detail.plugin_key,
      plugin_slug: detail.plugin_slug,
      plugin_name: detail.plugin_name,
      plugin_status: detail.plugin_status,
      provider_key: detail.has_binding ? detail.provider_key : null,
      supplier_id: detail.supplier_id,
      upstream_product_id: detail.upstream_product_id,
      config_template: detail.config_template as z.infer<typeof flatMapSchema> | null,
      provisioning_policy: detail.provisioning_policy as z.infer<typeof flatMapSchema> | null,
      routing_policy: detail.upstream.policy,
      routing_policy_label: UPSTREAM_ROUTING_LABELS[detail.upstream.policy],
      bindings: detail.upstream.bindings.map(productBindingResource),
      bindings_path: `/api/v2/admin/products/${detail.id}/upstream-bindings`,
    },
    options: { items: config.items, choice_count: config.choices.length, choices_path: `/api/v2/admin/products/${detail.id}/config-options` },
    audit: { total: detail.audit.total, list_path: auditListPath('product', detail.id), entries: detail.audit.entries.map(auditLineResource) },
  };
}

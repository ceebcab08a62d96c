import { z } from '@hono/zod-openapi';
import { formatDateTime } from '../../lib/time.js';
import { BILLING_PERIODS, billingPeriodLabel } from '../../domain/catalogue/billing-periods.js';
import { siteConfigView } from '../../domain/catalogue/config-view.js';
import { readPluginSchemas, readPurchaseSchema } from '../../domain/catalogue/plugin-schemas.js';
import { primaryPrice } from '../../domain/catalogue/pricing-map.js';
import { productTypeLabel, resolveTemplates } from '../../domain/catalogue/product-types.js';
import type { ProductType } from '../../db/models/catalogue.js';
import type { SiteCategoryRow, SiteGroupRow, SiteMenuRow, SiteProductDetailRow, SiteProductRow } from '../../domain/catalogue/site-catalogue.js';
import { STOCK_STATUSES, stockStatus } from '../../domain/catalogue/stock.js';
import { dateTimeString, moneyString } from '../schemas.js';
import { productTypeSchema } from './catalogue.js';
import { groupPath, optionChoiceSchema, optionItemSchema, pricingMapSchema } from './products.js';
import { heroSchema } from './support.js';

/** Whitelist resources of the public site: no internal fields (status, upstream ids, config templates). */
export const siteMenuSchema = z
  .object({
    id: z.number().int(),
    code: z.string(),
    name: z.string(),
    icon: z.string(),
    product_type: productTypeSchema,
    product_type_label: z.string(),
    sort_order: z.number().int(),
    group_count: z.number().int().openapi({ description: '显示中的二级分组数' }),
    product_count: z.number().int().openapi({ description: '在售商品数' }),
  })
  .openapi('SiteProductMenu');

export function siteMenuResource(row: SiteMenuRow) {
  return { ...row, product_type_label: productTypeLabel(row.product_type) };
}

export const siteGroupSchema = z
  .object({
    id: z.number().int(),
    first_product_group_id: z.number().int(),
    name: z.string(),
    description: z.string(),
    sort_order: z.number().int(),
    category_count: z.number().int(),
    product_count: z.number().int(),
  })
  .openapi('SiteProductGroup');

export function siteGroupResource(row: SiteGroupRow) {
  return { ...row };
}

export const siteCategorySchema = z
  .object({
    id: z.number().int(),
    second_product_group_id: z.number().int(),
    first_product_group_id: z.number().int(),
    name: z.string(),
    description: z.string(),
    sort_order: z.number().int(),
    product_count: z.number().int(),
  })
  .openapi('SiteProductCategory');

export function siteCategoryResource(row: SiteCategoryRow) {
  return { ...row };
}

const stockStatusSchema = z.enum(STOCK_STATUSES);

export const siteProductItemSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    display_name: z.string(),
    excerpt: z.string().openapi({ description: '描述的前 120 个字符' }),
    product_type: productTypeSchema,
    product_type_label: z.string(),
    first_product_group_id: z.number().int(),
    second_product_group_id: z.number().int().nullable(),
    product_group_id: z.number().int().nullable(),
    primary_price: moneyString.nullable(),
    primary_billing_period: z.enum(BILLING_PERIODS).nullable(),
    stock_status: stockStatusSchema,
    purchasable_online: z.boolean(),
    sort_order: z.number().int(),
  })
  .openapi('SiteProductItem');

export function siteProductItemResource(row: SiteProductRow) {
  const primary = primaryPrice(row.pricing);
  const purchaseSchema = readPurchaseSchema(row.plugin_purchase_schema);
  return {
    id: row.id,
    name: row.name,
    display_name: row.display_name,
    excerpt: row.description,
    product_type: row.product_type,
    product_type_label: productTypeLabel(row.product_type),
    first_product_group_id: row.first_product_group_id,
    second_product_group_id: row.second_product_group_id,
    product_group_id: row.product_group_id,
    primary_price: primary?.amount ?? null,
    primary_billing_period: primary?.billing_period ?? null,
    stock_status: stockStatus(row.stock_control, row.stock_qty),
    purchasable_online: resolveTemplates(row.product_type, { purchase: row.purchase_template }, { purchaseSchema, consoleSchema: null }).purchasable_online,
    sort_order: row.sort_order,
  };
}

const schemaElementSchema = z.record(z.string(), z.unknown()).openapi({ description: '插件声明的元素（更深的嵌套以 JSON 文本给出）' });

export const siteProductDetailSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    display_name: z.string(),
    description: z.string(),
    product_type: productTypeSchema,
    product_type_label: z.string(),
    first_product_group_id: z.number().int(),
    first_product_group_code: z.string(),
    second_product_group_id: z.number().int().nullable(),
    product_group_id: z.number().int().nullable(),
    group_path: z.string(),
    purchase_template: z.string().nullable().openapi({ description: '解析顺序：商品显式模板 → 类型内置模板 → other 类型的上游插件 purchase_schema → 无（不可在线购买）' }),
    console_template: z.string().nullable(),
    provider_key: z.string().nullable().openapi({ description: '绑定的上游插件（已启用时）的真实提供方标识' }),
    plugin_key: z.string().nullable(),
    purchasable_online: z.boolean(),
    not_purchasable_reason: z.string().nullable().openapi({ description: '不可在线购买或暂不可下单的中文原因' }),
    purchase_capabilities: z.array(z.enum(['quote', 'checkout', 'config_schema'])).openapi({
      description: 'quote 可报价；checkout 可下单（售罄时没有）；config_schema 有可选配置项或插件购买表单。不可在线购买时为空数组',
    }),
    currency: z.literal('CNY'),
    pricing: pricingMapSchema,
    primary_price: moneyString.nullable(),
    primary_billing_period: z.enum(BILLING_PERIODS).nullable(),
    billing_periods: z.array(z.object({ value: z.enum(BILLING_PERIODS), label: z.string(), amount: moneyString })),
    stock_status: stockStatusSchema,
    config_options: z.array(optionItemSchema).openapi({ description: '可选配置项（隐藏项不出现，报价时取默认值）' }),
    config_choices: z.array(optionChoiceSchema).openapi({ description: '子选项（平铺，field 指明所属配置项）' }),
    os_families: z.array(z.object({ family: z.string(), choice_ids: z.array(z.number().int()) })).openapi({ description: '操作系统按系列分组，choice_ids 指向 config_choices 中 field=os 的子选项' }),
    purchase_schema: z.object({ template: z.string() }).nullable().openapi({ description: 'other 类型：上游插件的购买表单模板；字段见 purchase_fields' }),
    purchase_fields: z.array(schemaElementSchema),
    console_schema: z.object({ template: z.string() }).nullable(),
    console_sections: z.array(schemaElementSchema),
    console_actions: z.array(schemaElementSchema),
    status_mapping: z.record(z.string(), z.string()).nullable().openapi({ description: 'other 类型：上游状态 → 中文名称' }),
    updated_at: dateTimeString.nullable(),
  })
  .openapi('SiteProductDetail');

function notPurchasableReason(type: ProductType, pluginKey: string | null, purchasable: boolean, soldOut: boolean): string | null {
  if (!purchasable) {
    return type === 'other' && !pluginKey ? '该商品未绑定可用的上游插件，暂不支持在线购买' : '该商品的上游插件未提供购买表单，暂不支持在线购买';
  }
  return soldOut ? '该商品已售罄，暂不可下单' : null;
}

export function siteProductDetailResource(row: SiteProductDetailRow) {
  const schemas = readPluginSchemas(row.plugin_extra);
  const templates = resolveTemplates(row.product_type, { purchase: row.purchase_template, console: row.console_template }, { purchaseSchema: schemas.purchase, consoleSchema: schemas.console });
  const config = siteConfigView(row.config_options);
  const status = stockStatus(row.stock_control, row.stock_qty);
  const soldOut = status === 'out_of_stock';
  const capabilities: Array<'quote' | 'checkout' | 'config_schema'> = [];
  if (templates.purchasable_online) {
    capabilities.push('quote');
    if (!soldOut) capabilities.push('checkout');
    if (config.items.length > 0 || (schemas.purchase?.fields.length ?? 0) > 0) capabilities.push('config_schema');
  }
  const primary = primaryPrice(row.pricing);
  return {
    id: row.id,
    name: row.name,
    display_name: row.display_name,
    description: row.description,
    product_type: row.product_type,
    product_type_label: productTypeLabel(row.product_type),
    first_product_group_id: row.first_product_group_id,
    first_product_group_code: row.first_product_group_code,
    second_product_group_id: row.second_product_group_id,
    product_group_id: row.product_group_id,
    group_path: groupPath(row),
    purchase_template: templates.purchase_template,
    console_template: templates.console_template,
    provider_key: row.provider_key,
    plugin_key: row.plugin_key,
    purchasable_online: templates.purchasable_online,
    not_purchasable_reason: notPurchasableReason(row.product_type, row.plugin_key, templates.purchasable_online, soldOut),
    purchase_capabilities: capabilities,
    currency: 'CNY' as const,
    pricing: row.pricing,
    primary_price: primary?.amount ?? null,
    primary_billing_period: primary?.billing_period ?? null,
    billing_periods: BILLING_PERIODS.flatMap((period) => {
      const amount = row.pricing[period];
      return amount === undefined ? [] : [{ value: period, label: billingPeriodLabel(period), amount }];
    }),
    stock_status: status,
    config_options: config.items,
    config_choices: config.choices,
    os_families: config.os_families,
    purchase_schema: schemas.purchase ? { template: schemas.purchase.template } : null,
    purchase_fields: (schemas.purchase?.fields ?? []) as Array<Record<string, unknown>>,
    console_schema: schemas.console ? { template: schemas.console.template } : null,
    console_sections: (schemas.console?.sections ?? []) as Array<Record<string, unknown>>,
    console_actions: (schemas.console?.actions ?? []) as Array<Record<string, unknown>>,
    status_mapping: schemas.statusMapping,
    updated_at: formatDateTime(row.updated_at),
  };
}

export const siteConfigSchema = z
  .object({
    site_name: z.string(),
    support_email: z.string().openapi({ description: '客服邮箱（系统设置 site.support_email；未设置为空字符串）' }),
    support_phone: z.string(),
    icp_record: z.string().openapi({ description: 'ICP 备案号' }),
    footer_text: z.string(),
    currency: z.literal('CNY'),
    currency_symbol: z.string(),
    time_zone: z.string(),
    billing_periods: z.array(z.object({ value: z.enum(BILLING_PERIODS), label: z.string(), months: z.number().int().nullable() })),
    product_types: z.array(z.object({ value: productTypeSchema, label: z.string(), is_plugin_driven: z.boolean() })),
    max_quote_quantity: z.number().int(),
    page_size_default: z.number().int(),
    page_size_max: z.number().int(),
  })
  .openapi('SiteConfig');

export const siteHomeSchema = z
  .object({
    site_name: z.string(),
    currency: z.literal('CNY'),
    menus: z.array(siteMenuSchema),
    featured_products: z.array(siteProductItemSchema),
    hero: heroSchema.openapi({ description: '首页横幅（visible 为 false 时不显示），与 GET /api/v2/site/home-hero 相同' }),
  })
  .openapi('SiteHome');

import { z } from '@hono/zod-openapi';
import { formatDateTime } from '../../lib/time.js';
import { AUDIT_ACTION_LABELS, AUDIT_ACTIONS, AUDIT_ENTITY_LABELS, type AuditEntry, auditFieldLabel, auditValueText, orderedChanges, summariseChanges } from '../../domain/catalogue/audit.js';
import type { CategoryView } from '../../domain/catalogue/categories.js';
import type { DirectoryTree } from '../../domain/catalogue/directory-tree.js';
import type { GroupView } from '../../domain/catalogue/groups.js';
import type { MenuView } from '../../domain/catalogue/menus.js';
import { productTypeLabel } from '../../domain/catalogue/product-types.js';
import { PRODUCT_TYPES } from '../../db/models/catalogue.js';
import { dateTimeString } from '../schemas.js';

/** Whitelist resources of the admin directory (menus, groups, categories, tree) and its audit. */
export const productTypeSchema = z.enum(PRODUCT_TYPES);
const visibleSchema = z.number().int().openapi({ description: '是否显示：1 显示，0 隐藏' });

export const menuSchema = z
  .object({
    id: z.number().int(),
    code: z.string().openapi({ description: '菜单编码，由系统生成，永远不等于商品类型' }),
    name: z.string(),
    icon: z.string(),
    product_type: productTypeSchema,
    product_type_label: z.string(),
    is_visible: visibleSchema,
    sort_order: z.number().int(),
    group_count: z.number().int().openapi({ description: '未删除的二级分组数' }),
    product_count: z.number().int().openapi({ description: '未删除的商品数（含下架）' }),
    created_at: dateTimeString.nullable(),
    updated_at: dateTimeString.nullable(),
  })
  .openapi('ProductMenu');

export function menuResource(menu: MenuView) {
  return {
    id: menu.id,
    code: menu.code,
    name: menu.name,
    icon: menu.icon,
    product_type: menu.product_type,
    product_type_label: productTypeLabel(menu.product_type),
    is_visible: menu.is_visible,
    sort_order: menu.sort_order,
    group_count: menu.group_count,
    product_count: menu.product_count,
    created_at: formatDateTime(menu.created_at),
    updated_at: formatDateTime(menu.updated_at),
  };
}

export const groupSchema = z
  .object({
    id: z.number().int(),
    first_product_group_id: z.number().int(),
    product_type: productTypeSchema.openapi({ description: '所属一级菜单的商品类型' }),
    name: z.string(),
    description: z.string(),
    is_visible: visibleSchema,
    sort_order: z.number().int(),
    category_count: z.number().int(),
    product_count: z.number().int(),
    created_at: dateTimeString.nullable(),
    updated_at: dateTimeString.nullable(),
  })
  .openapi('ProductGroup');

export function groupResource(group: GroupView) {
  return {
    id: group.id,
    first_product_group_id: group.first_product_group_id,
    product_type: group.product_type,
    name: group.name,
    description: group.description,
    is_visible: group.is_visible,
    sort_order: group.sort_order,
    category_count: group.category_count,
    product_count: group.product_count,
    created_at: formatDateTime(group.created_at),
    updated_at: formatDateTime(group.updated_at),
  };
}

export const categorySchema = z
  .object({
    id: z.number().int(),
    second_product_group_id: z.number().int(),
    first_product_group_id: z.number().int(),
    product_type: productTypeSchema,
    name: z.string(),
    description: z.string(),
    is_visible: visibleSchema,
    sort_order: z.number().int(),
    product_count: z.number().int(),
    created_at: dateTimeString.nullable(),
    updated_at: dateTimeString.nullable(),
  })
  .openapi('ProductCategory');

export function categoryResource(category: CategoryView) {
  return {
    id: category.id,
    second_product_group_id: category.second_product_group_id,
    first_product_group_id: category.first_product_group_id,
    product_type: category.product_type,
    name: category.name,
    description: category.description,
    is_visible: category.is_visible,
    sort_order: category.sort_order,
    product_count: category.product_count,
    created_at: formatDateTime(category.created_at),
    updated_at: formatDateTime(category.updated_at),
  };
}

export const directoryTreeSchema = z
  .object({
    menus: z.array(
      z.object({
        id: z.number().int(),
        code: z.string(),
        name: z.string(),
        product_type: productTypeSchema,
        is_visible: z.number().int(),
        sort_order: z.number().int(),
        group_count: z.number().int(),
        product_count: z.number().int(),
      }),
    ),
    groups: z.array(
      z.object({
        id: z.number().int(),
        first_product_group_id: z.number().int(),
        name: z.string(),
        is_visible: z.number().int(),
        sort_order: z.number().int(),
        category_count: z.number().int(),
        product_count: z.number().int(),
      }),
    ),
    categories: z.array(
      z.object({
        id: z.number().int(),
        second_product_group_id: z.number().int(),
        name: z.string(),
        is_visible: z.number().int(),
        sort_order: z.number().int(),
        product_count: z.number().int(),
      }),
    ),
  })
  .openapi('ProductDirectoryTree');

/** The tree's rows are already whitelisted columns; it is answered as read. */
export function directoryTreeResource(tree: DirectoryTree) {
  return tree;
}

export const reorderResultSchema = z.object({ list: z.array(z.object({ id: z.number().int(), sort_order: z.number().int() })) });

const auditEntityTypeSchema = z.enum(['menu', 'group', 'category', 'product']);
const auditValueSchema = z.union([z.string(), z.number(), z.boolean()]).nullable().openapi({ description: '标量原样返回，对象与数组为 JSON 文本' });

export const auditSummarySchema = z
  .object({
    id: z.number().int(),
    entity_type: auditEntityTypeSchema,
    entity_type_label: z.string(),
    entity_id: z.number().int(),
    action: z.enum(AUDIT_ACTIONS),
    action_label: z.string(),
    changed_fields: z.array(z.string()),
    summary: z.string().openapi({ description: '中文摘要，如“名称：入门型 → 标准型；价格已修改”' }),
    operator_id: z.number().int().nullable().openapi({ description: '管理员编号；系统操作（演示数据）为 null' }),
    operator_name: z.string(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('CatalogueAuditSummary');

export function auditSummaryResource(entry: AuditEntry) {
  return {
    id: entry.id,
    entity_type: entry.entity_type,
    entity_type_label: AUDIT_ENTITY_LABELS[entry.entity_type],
    entity_id: entry.entity_id,
    action: entry.action,
    action_label: AUDIT_ACTION_LABELS[entry.action] ?? entry.action,
    changed_fields: orderedChanges(entry.changes).map(([field]) => field),
    summary: summariseChanges(entry.changes),
    operator_id: entry.operator_id,
    operator_name: entry.operator_name,
    created_at: formatDateTime(entry.created_at),
  };
}

export const auditDetailSchema = auditSummarySchema
  .omit({ changed_fields: true })
  .extend({
    changes: z.array(z.object({ field: z.string(), label: z.string(), old: auditValueSchema, new: auditValueSchema })),
  })
  .openapi('CatalogueAuditEntry');

export function auditDetailResource(entry: AuditEntry) {
  const { changed_fields: _fields, ...summary } = auditSummaryResource(entry);
  return {
    ...summary,
    changes: orderedChanges(entry.changes).map(([field, change]) => ({
      field,
      label: auditFieldLabel(field),
      old: auditValueText(change.old),
      new: auditValueText(change.new),
    })),
  };
}

/** The entries of a detail's `audit` module: one line each (no changed-fields array: nesting limit). */
export const auditLineSchema = auditSummarySchema.omit({ changed_fields: true, entity_type: true, entity_type_label: true, entity_id: true });

export function auditLineResource(entry: AuditEntry) {
  const { changed_fields: _f, entity_type: _t, entity_type_label: _l, entity_id: _i, ...line } = auditSummaryResource(entry);
  return line;
}

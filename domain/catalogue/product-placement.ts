import type { Transaction } from 'sequelize';
import { type FieldErrors, validationError } from '../../lib/errors.js';
import type { ProductMenuRow } from '../../db/models/catalogue.js';
import type { DomainDeps } from '../deps.js';
import { findCategory, findGroup, findMenu, findMenuByCode } from './directory-rows.js';

/** How a request places a product: any of the menu (id or code), the group, the category. */
export type PlacementInput = {
  first_product_group_id?: number | undefined;
  first_product_group_code?: string | undefined;
  second_product_group_id?: number | null | undefined;
  product_group_id?: number | null | undefined;
};

export type Placement = { menu: ProductMenuRow; groupId: number | null; categoryId: number | null };

export function hasPlacement(input: PlacementInput): boolean {
  return (
    input.first_product_group_id !== undefined ||
    input.first_product_group_code !== undefined ||
    (input.second_product_group_id ?? null) !== null ||
    (input.product_group_id ?? null) !== null
  );
}

/**
 * Resolves where a product belongs, from the most specific reference given: the category
 * (`product_group_id`) decides its group and menu, else the group (`second_product_group_id`)
 * its menu, else the menu by `first_product_group_id` or `first_product_group_code`. References
 * that disagree, or are absent, are a 42200 naming the field. The rows are read FOR SHARE, so a
 * concurrent move or type change of the menu waits for this transaction (and vice versa).
 */
export async function resolvePlacement(deps: DomainDeps, input: PlacementInput, transaction: Transaction): Promise<Placement> {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const lock = { transaction, lock: 'share' as const };

  let menu: ProductMenuRow | null = null;
  if (input.first_product_group_id !== undefined) {
    menu = await findMenu(deps, input.first_product_group_id, lock);
    if (!menu) add('first_product_group_id', '一级菜单不存在');
  }
  if (input.first_product_group_code !== undefined) {
    const byCode = await findMenuByCode(deps, input.first_product_group_code, lock);
    if (!byCode) add('first_product_group_code', '一级菜单编码不存在');
    else if (menu && menu.id !== byCode.id) add('first_product_group_code', '一级菜单编码与 first_product_group_id 不是同一个菜单');
    else menu = byCode;
  }
  let groupId: number | null = null;
  let categoryId: number | null = null;
  let groupMenuId: number | null = null;
  if (input.product_group_id !== undefined && input.product_group_id !== null) {
    const category = await findCategory(deps, input.product_group_id, lock);
    if (!category) add('product_group_id', '三级分类不存在');
    else {
      categoryId = category.id;
      groupId = category.second_product_group_id;
      if (input.second_product_group_id !== undefined && input.second_product_group_id !== null && input.second_product_group_id !== groupId) {
        add('second_product_group_id', '二级分组与所选三级分类不匹配');
      }
    }
  } else if (input.second_product_group_id !== undefined && input.second_product_group_id !== null) {
    groupId = input.second_product_group_id;
  }
  if (groupId !== null) {
    const group = await findGroup(deps, groupId, lock);
    if (!group) add(categoryId ? 'product_group_id' : 'second_product_group_id', '二级分组不存在');
    else groupMenuId = group.first_product_group_id;
  }
  if (groupMenuId !== null) {
    if (menu && menu.id !== groupMenuId) add(menu.id === input.first_product_group_id ? 'first_product_group_id' : 'first_product_group_code', '一级菜单与所选分组或分类不匹配');
    else if (!menu) menu = await findMenu(deps, groupMenuId, lock);
  }
  if (!menu && Object.keys(errors).length === 0) {
    add('first_product_group_id', '请选择商品所属的一级菜单（first_product_group_id 或 first_product_group_code）或三级分类');
  }
  if (Object.keys(errors).length > 0 || !menu) throw validationError(errors);
  return { menu, groupId, categoryId };
}

import { type Actor, adminActor } from '../../../lib/actor.js';
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../context.js';
import { idInput, PAGE_SIZE_MAX } from '../../schemas.js';

/** Input pieces shared by the admin catalogue routes. */
export const nameInput = z.string({ error: '请填写名称' }).trim().min(1, { error: '名称不能为空' }).max(64, { error: '名称最多 64 个字符' });
export const descriptionInput = z.string().max(500, { error: '描述最多 500 个字符' });
export const sortOrderInput = z
  .number({ error: '排序必须是整数' })
  .int({ error: '排序必须是整数' })
  .min(-1_000_000, { error: '排序超出范围' })
  .max(1_000_000, { error: '排序超出范围' });

/** `is_visible`: 1/0 (the spec's form) or a JSON boolean; stored and answered as 1/0. */
export const visibleInput = z
  .union([z.literal(0), z.literal(1), z.boolean()], { error: 'is_visible 只能是 1、0 或布尔值' })
  .transform((v) => (v === true || v === 1 ? 1 : 0))
  .openapi({ type: 'integer', enum: [0, 1], description: '1 显示，0 隐藏（也接受 true/false）' });

export const parentIdInput = (label: string) => idInput(`请选择${label}`);

export const reorderBody = z
  .object({
    items: z
      .array(z.object({ id: idInput(), sort_order: sortOrderInput }), {
        error: 'items 必须是数组',
      })
      .min(1, { error: 'items 不能为空' })
      .max(PAGE_SIZE_MAX * 5, { error: `items 最多 ${PAGE_SIZE_MAX * 5} 个` }),
  })
  .openapi('ReorderRequest', {
    description: '排序：items 为 {id, sort_order} 数组；全部成功或全部不变（任一编号不存在或重复则 42200 指明 items.<序号>.id）；未列出的行保持原排序',
  });

/** The admin behind a request, as the audit records it. */
export function operatorOf(c: Context<AppEnv>): Actor {
  return adminActor(c.var.admin);
}

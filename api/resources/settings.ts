import { z } from '@hono/zod-openapi';
import { formatDateTime } from '../../lib/time.js';
import type { SettingView } from '../../domain/settings/settings.js';
import { dateTimeString } from '../schemas.js';

export const settingItemSchema = z
  .object({
    key: z.string().openapi({ description: '设置键，`<分组>.<名称>`' }),
    group: z.string(),
    label: z.string(),
    description: z.string().nullable(),
    secret: z.boolean().openapi({ description: '敏感项：value 恒为空字符串，仅给出 has_value 与 masked_value' }),
    value: z.unknown().openapi({ description: '当前值（字符串、数字、布尔值或数组）；敏感项为空字符串' }),
    has_value: z.boolean().openapi({ description: '普通项：已保存过（非默认值）；敏感项：已设置' }),
    masked_value: z.string().nullable().openapi({ description: '敏感项的掩码（绝不等于原值）；普通项为 null' }),
    is_default: z.boolean(),
    updated_at: dateTimeString.nullable(),
  })
  .openapi('SettingItem');

export const settingsSchema = z
  .object({
    groups: z.array(z.object({ name: z.string(), label: z.string() })),
    items: z.array(settingItemSchema),
  })
  .openapi('Settings');

export function settingItemResource(view: SettingView) {
  return {
    key: view.key,
    group: view.group,
    label: view.label,
    description: view.description,
    secret: view.secret,
    value: view.secret ? '' : view.value,
    has_value: view.has_value,
    masked_value: view.secret ? view.masked_value : null,
    is_default: view.is_default,
    updated_at: view.updated_at ? formatDateTime(view.updated_at) : null,
  };
}

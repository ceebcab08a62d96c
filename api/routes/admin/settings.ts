import { z } from '@hono/zod-openapi';
import { listSettings, saveSettings, settingGroups } from '../../../domain/settings/settings.js';
import { ok } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { settingItemResource, settingsSchema } from '../../resources/settings.js';
import { jsonBody } from '../../schemas.js';

const tags = ['管理端：系统设置'];

const GROUP = /^[a-z][a-z0-9_]*$/;
const KEY = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;

const read = defineRoute({
  method: 'get',
  path: '/api/v2/admin/settings',
  tags,
  summary: '读取系统设置（按分组；敏感项不返回原值）',
  description:
    '每一项带 label、当前 value 与是否默认值。敏感项（secret=true）的 value 恒为空字符串，另给 has_value 与 masked_value（真正的掩码，绝不等于原值）。',
  access: { surface: 'admin', permission: 'setting.view' },
  request: { query: z.object({ group: z.string().max(40).regex(GROUP, '分组名不正确').optional() }) },
  data: settingsSchema,
});

const save = defineRoute({
  method: 'post',
  path: '/api/v2/admin/settings',
  tags,
  summary: '保存系统设置（可一次提交多项，全部成功或全部不变）',
  description:
    'values 为 `{ "<分组>.<名称>": 值 }`。每项按其规则校验，任一项不合法则返回 42200（errors 的键为 `values.<键>`）且不保存任何一项。敏感项提交空字符串表示保留原值，非空则加密保存；普通项提交 null 表示恢复默认值。变更只记录键名，敏感项不记录值。答复为保存后的全部设置。',
  access: { surface: 'admin', permission: 'setting.manage' },
  request: jsonBody(
    z.object({
      values: z
        .record(z.string().max(100).regex(KEY, '设置键格式应为 分组.名称'), z.unknown())
        .refine((v) => Object.keys(v).length <= 200, '一次最多保存 200 项'),
    }),
  ),
  data: settingsSchema,
});

async function present(deps: Parameters<typeof listSettings>[0], group?: string) {
  return { groups: settingGroups(), items: (await listSettings(deps, { group })).map(settingItemResource) };
}

export const adminSettingRoutes = createRouter()
  .openapi(read, async (c) => ok(c, await present(c.var.deps, c.req.valid('query').group)))
  .openapi(save, async (c) => {
    const changes = await saveSettings(c.var.deps, c.var.admin.id, c.req.valid('json').values);
    return ok(c, await present(c.var.deps), changes.length > 0 ? `已保存 ${changes.length} 项设置` : '设置无变化');
  });

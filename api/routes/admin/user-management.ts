import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../../lib/errors.js';
import { formatDateTime } from '../../../lib/time.js';
import { addUserNote, createUserByAdmin, listUserLogs, listUserNotes, resetUserPassword, updateUserProfile, type UserNoteRow } from '../../../domain/users/admin-users.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { userResource, userSchema } from '../../resources/accounts.js';
import { dateTimeString, idParam, jsonBody, listQuery, LOG_LIST_NOTE, logListQuery, newPassword } from '../../schemas.js';

const tags = ['管理端：用户'];
const manage = { surface: 'admin', permission: 'user.manage' } as const;
const view = { surface: 'admin', permission: 'user.view' } as const;

const email = z.email({ error: '邮箱格式不正确' }).max(191, { error: '邮箱最多 191 个字符' });
const phone = z.string().regex(/^\+?[0-9]{6,20}$/, { error: '手机号格式不正确（6 到 20 位数字，可带 +）' });
const nickname = z.string().trim().min(1, { error: '昵称不能为空' }).max(64, { error: '昵称最多 64 个字符' });

const create = defineRoute({
  method: 'post',
  path: '/api/v2/admin/users',
  tags,
  summary: '创建用户',
  description: '邮箱与手机号至少填一个；邮箱未验证。密码 8 到 72 位，不会出现在任何响应或日志中。',
  access: manage,
  request: jsonBody(
    z
      .object({ email: email.optional(), phone: phone.optional(), nickname: nickname.optional(), password: newPassword })
      .refine((v) => v.email !== undefined || v.phone !== undefined, { error: '邮箱与手机号至少填一个', path: ['email'] }),
  ),
  data: userSchema,
  errors: [ErrorCode.CONFLICT],
  idempotent: true,
});

const update = defineRoute({
  method: 'put',
  path: '/api/v2/admin/users/{user}',
  tags,
  summary: '编辑用户资料（邮箱、手机号、昵称）',
  description: '只修改提交的字段；修改邮箱后邮箱变为未验证。实名信息与会员等级不在此修改。',
  access: manage,
  request: {
    params: idParam('user'),
    ...jsonBody(z.object({ email: email.nullable().optional(), phone: phone.nullable().optional(), nickname: nickname.optional() })),
  },
  data: userSchema,
  errors: [ErrorCode.CONFLICT],
});

const resetPassword = defineRoute({
  method: 'post',
  path: '/api/v2/admin/users/{user}/reset-password',
  tags,
  summary: '重置用户密码（其所有会话立即失效）',
  access: manage,
  request: { params: idParam('user'), ...jsonBody(z.object({ password: newPassword })) },
  data: userSchema,
});

const noteSchema = z
  .object({ id: z.number().int(), user_id: z.number().int(), admin_id: z.number().int().nullable(), admin_name: z.string(), content: z.string(), created_at: dateTimeString.nullable() })
  .openapi('UserNote');

function noteResource(row: UserNoteRow) {
  return { id: row.id, user_id: row.user_id, admin_id: row.admin_id, admin_name: row.admin_name, content: row.content, created_at: formatDateTime(row.created_at) };
}

const notes = defineRoute({
  method: 'get',
  path: '/api/v2/admin/users/{user}/notes',
  tags,
  summary: '用户备注',
  access: view,
  request: { params: idParam('user'), query: listQuery({}) },
  data: pageSchema(noteSchema),
});

const addNote = defineRoute({
  method: 'post',
  path: '/api/v2/admin/users/{user}/notes',
  tags,
  summary: '添加用户备注（只增不改，记录作者）',
  access: manage,
  request: { params: idParam('user'), ...jsonBody(z.object({ content: z.string().trim().min(1, { error: '备注不能为空' }).max(2000, { error: '备注最多 2000 个字符' }) })) },
  data: noteSchema,
});

const userLogSchema = z
  .object({
    id: z.number().int(),
    type: z.enum(['login', 'api']),
    summary: z.string(),
    success: z.boolean(),
    ip: z.string(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('UserLog');

const logs = defineRoute({
  method: 'get',
  path: '/api/v2/admin/users/{user}/logs',
  tags,
  summary: '用户日志（登录记录或接口请求记录）',
  description: `type=login（默认）：该用户的登录记录；type=api：该用户发出的接口请求（路由模板与结果，不含请求内容）。${LOG_LIST_NOTE}`,
  access: { surface: 'admin', permission: 'log.view' },
  request: { params: idParam('user'), query: logListQuery({ type: z.enum(['login', 'api']).default('login') }) },
  data: pageSchema(userLogSchema),
});

export const adminUserManagementRoutes = createRouter()
  .openapi(create, async (c) => ok(c, userResource(await createUserByAdmin(c.var.deps, c.req.valid('json'))), '用户已创建'))
  .openapi(update, async (c) => ok(c, userResource(await updateUserProfile(c.var.deps, c.req.valid('param').user, c.req.valid('json'))), '用户资料已更新'))
  .openapi(resetPassword, async (c) =>
    ok(c, userResource(await resetUserPassword(c.var.deps, c.req.valid('param').user, c.req.valid('json').password)), '密码已重置，用户需重新登录'),
  )
  .openapi(notes, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listUserNotes(c.var.deps, c.req.valid('param').user, query);
    return ok(c, page(rows.map(noteResource), total, query));
  })
  .openapi(addNote, async (c) => {
    const note = await addUserNote(c.var.deps, c.req.valid('param').user, c.var.admin, c.req.valid('json').content);
    return ok(c, noteResource(note), '备注已添加');
  })
  .openapi(logs, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listUserLogs(c.var.deps, c.req.valid('param').user, query);
    return ok(c, page(rows.map((r) => ({ ...r, created_at: formatDateTime(r.created_at) })), total, query));
  });

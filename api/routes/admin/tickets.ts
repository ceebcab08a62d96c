import { z } from '@hono/zod-openapi';
import { TICKET_PRIORITIES, TICKET_STATUSES } from '../../../db/models/support.js';
import { createDepartment, deleteDepartment, getDepartment, listDepartments, updateDepartment } from '../../../domain/support/departments.js';
import { assignTicket, getTicket, listTickets, replyAsStaff, setTicketStatus, TICKET_SORT_KEYS } from '../../../domain/support/tickets.js';
import { getUser } from '../../../domain/users/users.js';
import { ErrorCode } from '../../../lib/errors.js';
import type { AppEnv } from '../../context.js';
import { ok, page, pageOfAll, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import {
  adminDepartmentResource,
  adminDepartmentSchema,
  adminTicketDetailSchema,
  adminTicketItemResource,
  adminTicketItemSchema,
  threadResource,
} from '../../resources/support.js';
import { idInput, idParam, idQuery, jsonBody, listQuery, sortQuery } from '../../schemas.js';
import { ticketBody } from '../client/tickets.js';
import type { Context } from 'hono';

const tags = ['管理端：工单'];
const view = { surface: 'admin', permission: 'ticket.view' } as const;
const manage = { surface: 'admin', permission: 'ticket.manage' } as const;

const filters = {
  status: z.enum(TICKET_STATUSES).optional(),
  department_id: idQuery().optional(),
  priority: z.enum(TICKET_PRIORITIES).optional(),
  assignee_id: idQuery().optional(),
  keyword: z.string().max(100, { error: '关键词最多 100 个字符' }).optional(),
  sort: sortQuery(TICKET_SORT_KEYS).optional(),
};

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/tickets',
  tags,
  summary: '工单列表',
  description: '筛选：status、department_id、priority、assignee_id、user_id、keyword（标题或工单编号）；sort 可选 id、last_reply_at、created_at、priority（前缀 - 倒序），默认按最后回复时间倒序。',
  access: view,
  request: { query: listQuery({ ...filters, user_id: idQuery().optional() }) },
  data: pageSchema(adminTicketItemSchema),
});

const userTickets = defineRoute({
  method: 'get',
  path: '/api/v2/admin/users/{user}/tickets',
  tags,
  summary: '用户的工单',
  access: view,
  request: { params: idParam('user'), query: listQuery(filters) },
  data: pageSchema(adminTicketItemSchema),
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/tickets/{ticket}',
  tags,
  summary: '工单详情（含内部备注）',
  access: view,
  request: { params: idParam('ticket') },
  data: adminTicketDetailSchema,
});

const reply = defineRoute({
  method: 'post',
  path: '/api/v2/admin/tickets/{ticket}/reply',
  tags,
  summary: '回复工单或添加内部备注',
  description: 'internal=false：公开回复，工单变为已回复（等待客户），并通知客户（邮件、短信各最多一次）；已关闭的工单须先重新打开（40955）。internal=true：内部备注，仅管理端可见，不改变状态，不通知。',
  access: manage,
  request: { params: idParam('ticket'), ...jsonBody(z.object({ body: ticketBody, internal: z.boolean({ error: 'internal 必须是布尔值' }).default(false) }).strict()) },
  data: adminTicketDetailSchema,
  errors: [ErrorCode.TICKET_CLOSED],
});

const assign = defineRoute({
  method: 'post',
  path: '/api/v2/admin/tickets/{ticket}/assign',
  tags,
  summary: '分配工单处理人',
  description: 'admin_id 为 null 时取消分配。',
  access: manage,
  request: { params: idParam('ticket'), ...jsonBody(z.object({ admin_id: idInput('管理员编号必须是正整数').nullable() }).strict()) },
  data: adminTicketDetailSchema,
});

const status = defineRoute({
  method: 'post',
  path: '/api/v2/admin/tickets/{ticket}/status',
  tags,
  summary: '修改工单状态（含关闭与重新打开）',
  access: manage,
  request: { params: idParam('ticket'), ...jsonBody(z.object({ status: z.enum(TICKET_STATUSES, { error: '状态只能是 open、answered、customer_reply 或 closed' }) }).strict()) },
  data: adminTicketDetailSchema,
});

const departmentBody = z
  .object({
    name: z.string().trim().min(1, { error: '名称不能为空' }).max(64, { error: '名称最多 64 个字符' }),
    description: z.string().max(255, { error: '说明最多 255 个字符' }).optional(),
    notify_email: z.email({ error: '通知邮箱格式不正确' }).max(191).nullable().optional(),
    sort_order: z.number().int().min(-100_000).max(100_000).optional(),
    is_visible: z.boolean().optional(),
  })
  .strict();

const departmentList = defineRoute({
  method: 'get',
  path: '/api/v2/admin/ticket-departments',
  tags,
  summary: '工单部门列表',
  access: view,
  request: { query: listQuery({}) },
  data: pageSchema(adminDepartmentSchema),
});

const departmentCreate = defineRoute({
  method: 'post',
  path: '/api/v2/admin/ticket-departments',
  tags,
  summary: '新建工单部门',
  access: manage,
  request: jsonBody(departmentBody),
  data: adminDepartmentSchema,
});

const departmentUpdate = defineRoute({
  method: 'put',
  path: '/api/v2/admin/ticket-departments/{department}',
  tags,
  summary: '修改工单部门',
  access: manage,
  request: { params: idParam('department'), ...jsonBody(departmentBody.partial()) },
  data: adminDepartmentSchema,
});

const departmentDelete = defineRoute({
  method: 'delete',
  path: '/api/v2/admin/ticket-departments/{department}',
  tags,
  summary: '删除工单部门（已有工单的部门不能删除，可隐藏）',
  access: manage,
  request: { params: idParam('department') },
  data: z.null(),
  errors: [ErrorCode.IN_USE],
});

async function detailOf(c: Context<AppEnv>, id: number) {
  const deps = c.var.deps;
  const { ticket, replies, attachments } = await getTicket(deps, id, null);
  return { ...adminTicketItemResource(ticket), ...threadResource(deps, replies, attachments, { type: 'admin', id: c.var.admin.id }) };
}

export const adminTicketRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listTickets(c.var.deps, query);
    return ok(c, page(rows.map(adminTicketItemResource), total, query));
  })
  .openapi(userTickets, async (c) => {
    const { user } = c.req.valid('param');
    await getUser(c.var.deps, user);
    const query = c.req.valid('query');
    const { rows, total } = await listTickets(c.var.deps, { ...query, user_id: user });
    return ok(c, page(rows.map(adminTicketItemResource), total, query));
  })
  .openapi(detail, async (c) => ok(c, await detailOf(c, c.req.valid('param').ticket)))
  .openapi(reply, async (c) => {
    const { ticket } = c.req.valid('param');
    await replyAsStaff(c.var.deps, c.var.admin.id, ticket, c.req.valid('json'));
    return ok(c, await detailOf(c, ticket), '回复成功');
  })
  .openapi(assign, async (c) => {
    const { ticket } = c.req.valid('param');
    await assignTicket(c.var.deps, ticket, c.req.valid('json').admin_id);
    return ok(c, await detailOf(c, ticket), '已分配');
  })
  .openapi(status, async (c) => {
    const { ticket } = c.req.valid('param');
    await setTicketStatus(c.var.deps, ticket, c.req.valid('json').status);
    return ok(c, await detailOf(c, ticket), '状态已更新');
  })
  .openapi(departmentList, async (c) => ok(c, pageOfAll((await listDepartments(c.var.deps, { visibleOnly: false })).map(adminDepartmentResource), c.req.valid('query'))))
  .openapi(departmentCreate, async (c) => ok(c, adminDepartmentResource(await createDepartment(c.var.deps, c.req.valid('json'))), '已创建'))
  .openapi(departmentUpdate, async (c) => {
    const { department } = c.req.valid('param');
    await getDepartment(c.var.deps, department);
    return ok(c, adminDepartmentResource(await updateDepartment(c.var.deps, department, c.req.valid('json'))), '已保存');
  })
  .openapi(departmentDelete, async (c) => {
    await deleteDepartment(c.var.deps, c.req.valid('param').department);
    return ok(c, null, '已删除');
  });

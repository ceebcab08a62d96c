import { z } from '@hono/zod-openapi';
import { TICKET_PRIORITIES, TICKET_STATUSES } from '../../../db/models/support.js';
import { checkClientUploadRate, storeUpload } from '../../../domain/media/media.js';
import { listDepartments } from '../../../domain/support/departments.js';
import { UPLOAD_BODY_CEILING_BYTES, uploadPolicy } from '../../../domain/support/policy.js';
import { closeAsClient, createTicket, getTicket, listTickets, MAX_ATTACHMENTS, replyAsClient } from '../../../domain/support/tickets.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok, page, pageOfAll, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import {
  departmentResource,
  departmentSchema,
  threadResource,
  ticketDetailSchema,
  ticketItemResource,
  ticketItemSchema,
  uploadedFileResource,
  uploadedFileSchema,
} from '../../resources/support.js';
import { idInput, idParam, jsonBody, listQuery } from '../../schemas.js';
import { readUpload, uploadBody } from '../../upload.js';

const tags = ['客户端：工单'];
const access = { surface: 'client' } as const;

/** Plain text: stored and answered as typed (never rendered as HTML); the input guard already refuses control characters. */
export const ticketBody = z
  .string({ error: '内容必须是文本' })
  .trim()
  .min(1, { error: '内容不能为空' })
  .max(10_000, { error: '内容最多 10000 个字符' });

const assetIds = z
  .array(z.string().regex(/^[0-9a-f]{32}$/, { error: '附件编号格式不正确' }), { error: 'attachments 必须是附件编号数组' })
  .max(MAX_ATTACHMENTS, { error: `每条回复最多 ${MAX_ATTACHMENTS} 个附件` });

const departments = defineRoute({
  method: 'get',
  path: '/api/v2/client/ticket-departments',
  tags,
  summary: '可提交工单的部门',
  access,
  request: { query: listQuery({}) },
  data: pageSchema(departmentSchema),
});

const create = defineRoute({
  method: 'post',
  path: '/api/v2/client/tickets',
  tags,
  summary: '提交工单',
  description: '正文为纯文本。附件先通过上传附件接口上传，再以 asset_id 传入（仅限本人上传且未使用过的附件）。提交与回复合计按用户限频（42900）。',
  access: { surface: 'client', precondition: 'ticket' },
  idempotent: true,
  request: jsonBody(
    z
      .object({
        department_id: idInput('部门编号必须是正整数'),
        subject: z.string().trim().min(1, { error: '标题不能为空' }).max(120, { error: '标题最多 120 个字符' }),
        body: ticketBody,
        priority: z.enum(TICKET_PRIORITIES, { error: '优先级只能是 low、normal、high 或 urgent' }).default('normal'),
        service_id: idInput('服务编号必须是正整数').optional(),
        attachments: assetIds.optional(),
      })
      .strict(),
  ),
  data: z.object({ id: z.number().int() }),
  errors: [ErrorCode.TOO_MANY_REQUESTS],
});

const list = defineRoute({
  method: 'get',
  path: '/api/v2/client/tickets',
  tags,
  summary: '我的工单',
  access,
  request: { query: listQuery({ status: z.enum(TICKET_STATUSES).optional() }) },
  data: pageSchema(ticketItemSchema),
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/client/tickets/{id}',
  tags,
  summary: '工单详情（含回复与附件链接）',
  access,
  request: { params: idParam('id') },
  data: ticketDetailSchema,
});

const reply = defineRoute({
  method: 'post',
  path: '/api/v2/client/tickets/{id}/reply',
  tags,
  summary: '回复工单',
  description: '已关闭的工单不能回复（40955），请提交新工单。',
  access: { surface: 'client', precondition: 'ticket' },
  request: { params: idParam('id'), ...jsonBody(z.object({ body: ticketBody, attachments: assetIds.optional() }).strict()) },
  data: ticketDetailSchema,
  errors: [ErrorCode.TICKET_CLOSED, ErrorCode.TOO_MANY_REQUESTS],
});

const close = defineRoute({
  method: 'post',
  path: '/api/v2/client/tickets/{id}/close',
  tags,
  summary: '关闭工单',
  access,
  request: { params: idParam('id') },
  data: ticketDetailSchema,
  errors: [ErrorCode.TICKET_CLOSED],
});

const upload = defineRoute({
  method: 'post',
  path: '/api/v2/client/tickets/attachments',
  tags,
  summary: '上传工单附件（multipart）',
  description:
    '表单字段 file。类型由文件内容判定，仅支持 PNG、JPEG、WebP、GIF 图片、PDF 与 UTF-8 纯文本；SVG、HTML（无论文件名）及夹带网页标记的文件一律拒绝（42200）；图片须能解码。大小超限答 41300；每个用户每小时最多上传 30 个文件（42900）。答 asset_id 与仅限本人使用的短期链接。',
  access,
  bodyLimitBytes: UPLOAD_BODY_CEILING_BYTES,
  request: uploadBody,
  data: uploadedFileSchema,
  errors: [ErrorCode.TOO_MANY_REQUESTS],
});

async function detailOf(c: { var: { deps: Parameters<typeof getTicket>[0]; client: { id: number } } }, id: number) {
  const deps = c.var.deps;
  const { ticket, replies, attachments } = await getTicket(deps, id, c.var.client.id);
  return { ...ticketItemResource(ticket), ...threadResource(deps, replies, attachments, { type: 'user', id: c.var.client.id }) };
}

export const clientTicketRoutes = createRouter()
  .openapi(departments, async (c) => ok(c, pageOfAll((await listDepartments(c.var.deps, { visibleOnly: true })).map(departmentResource), c.req.valid('query'))))
  .openapi(upload, async (c) => {
    const deps = c.var.deps;
    const { file } = c.req.valid('form');
    await checkClientUploadRate(deps, c.var.client.id);
    const { bytes, name } = await readUpload(file, (await uploadPolicy(deps)).attachmentMaxBytes);
    const row = await storeUpload(deps, {
      bytes,
      name,
      allowed: ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'application/pdf', 'text/plain'],
      purpose: 'ticket',
      owner: { type: 'user', id: c.var.client.id },
    });
    return ok(c, uploadedFileResource(deps, row, { type: 'user', id: c.var.client.id }), '上传成功');
  })
  .openapi(create, async (c) => {
    const id = await createTicket(c.var.deps, c.var.client.id, c.req.valid('json'));
    return ok(c, { id }, '工单已提交');
  })
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listTickets(c.var.deps, { ...query, user_id: c.var.client.id });
    return ok(c, page(rows.map(ticketItemResource), total, query));
  })
  .openapi(detail, async (c) => ok(c, await detailOf(c, c.req.valid('param').id)))
  .openapi(reply, async (c) => {
    const { id } = c.req.valid('param');
    await replyAsClient(c.var.deps, c.var.client.id, id, c.req.valid('json'));
    return ok(c, await detailOf(c, id), '回复成功');
  })
  .openapi(close, async (c) => {
    const { id } = c.req.valid('param');
    await closeAsClient(c.var.deps, c.var.client.id, id);
    return ok(c, await detailOf(c, id), '工单已关闭');
  });

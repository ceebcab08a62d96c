import { z } from '@hono/zod-openapi';
import { ARTICLE_KINDS, ARTICLE_STATUSES, MEDIA_MIME_TYPES, MEDIA_PURPOSES, TICKET_CLOSERS, TICKET_PRIORITIES, TICKET_STATUSES } from '../../db/models/support.js';
import type { ArticleDetailRow, ArticleRow, CategoryRow } from '../../domain/content/articles.js';
import type { HeroRow } from '../../domain/content/home-hero.js';
import type { DomainDeps } from '../../domain/deps.js';
import { type AssetViewer, assetUrl } from '../../domain/media/asset-links.js';
import type { MediaRow } from '../../domain/media/media.js';
import type { DepartmentRow } from '../../domain/support/departments.js';
import type { AttachmentRow, ReplyRow, TicketRow } from '../../domain/support/tickets.js';
import { formatDateTime } from '../../lib/time.js';
import { dateTimeString } from '../schemas.js';

/** Whitelist resources of tickets, media, content and the hero. Files leave as `asset_id` and a signed `url`, never as bytes. */

export const TICKET_STATUS_LABELS: Record<(typeof TICKET_STATUSES)[number], string> = {
  open: '待处理',
  answered: '已回复',
  customer_reply: '客户已回复',
  closed: '已关闭',
};

export const TICKET_PRIORITY_LABELS: Record<(typeof TICKET_PRIORITIES)[number], string> = { low: '低', normal: '普通', high: '高', urgent: '紧急' };

const urlDescription = '签名的短期访问链接（相对地址，GET /api/secure-assets/view）；私有文件的链接仅限签发对象使用，须带其登录令牌';

export const departmentSchema = z
  .object({ id: z.number().int(), name: z.string(), description: z.string(), sort_order: z.number().int() })
  .openapi('TicketDepartment');

export const adminDepartmentSchema = departmentSchema
  .extend({
    notify_email: z.string().nullable().openapi({ description: '客户回复的通知邮箱（可空：不发送）' }),
    is_visible: z.boolean(),
    created_at: dateTimeString.nullable(),
    updated_at: dateTimeString.nullable(),
  })
  .openapi('AdminTicketDepartment');

export function departmentResource(row: DepartmentRow) {
  return { id: row.id, name: row.name, description: row.description, sort_order: row.sort_order };
}

export function adminDepartmentResource(row: DepartmentRow) {
  return {
    ...departmentResource(row),
    notify_email: row.notify_email,
    is_visible: row.is_visible,
    created_at: formatDateTime(row.created_at),
    updated_at: formatDateTime(row.updated_at),
  };
}

export const ticketItemSchema = z
  .object({
    id: z.number().int(),
    subject: z.string(),
    excerpt: z.string().openapi({ description: '最新一条公开回复的前 100 个字符（纯文本）' }),
    department: z.object({ id: z.number().int(), name: z.string() }),
    service_id: z.number().int().nullable(),
    priority: z.enum(TICKET_PRIORITIES),
    priority_label: z.string(),
    status: z.enum(TICKET_STATUSES).openapi({
      description: 'open 待处理 → answered 已回复（等待客户）→ customer_reply 客户已回复 → … → closed 已关闭',
    }),
    status_label: z.string(),
    last_reply_by: z.enum(['user', 'staff']),
    last_reply_at: dateTimeString.nullable(),
    closed_by: z.enum(TICKET_CLOSERS).nullable().openapi({ description: 'user 客户关闭；staff 客服关闭；auto 自动关闭' }),
    closed_at: dateTimeString.nullable(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('TicketItem');

export const adminTicketItemSchema = ticketItemSchema
  .extend({
    user: z.object({ id: z.number().int(), email: z.string().nullable() }),
    assignee: z.object({ id: z.number().int(), username: z.string() }).nullable(),
  })
  .openapi('AdminTicketItem');

export function ticketItemResource(row: TicketRow) {
  return {
    id: row.id,
    subject: row.subject,
    excerpt: row.excerpt,
    department: { id: row.department_id, name: row.department_name },
    service_id: row.service_id,
    priority: row.priority,
    priority_label: TICKET_PRIORITY_LABELS[row.priority],
    status: row.status,
    status_label: TICKET_STATUS_LABELS[row.status],
    last_reply_by: row.last_reply_by,
    last_reply_at: formatDateTime(row.last_reply_at),
    closed_by: row.closed_by,
    closed_at: formatDateTime(row.closed_at),
    created_at: formatDateTime(row.created_at),
  };
}

export function adminTicketItemResource(row: TicketRow) {
  return {
    ...ticketItemResource(row),
    user: { id: row.user_id, email: row.user_email },
    assignee: row.assignee_admin_id === null ? null : { id: row.assignee_admin_id, username: row.assignee_name ?? '' },
  };
}

export const attachmentSchema = z
  .object({
    id: z.number().int(),
    reply_id: z.number().int(),
    asset_id: z.string(),
    name: z.string(),
    type: z.enum(MEDIA_MIME_TYPES),
    size: z.number().int(),
    url: z.string().nullable().openapi({ description: `${urlDescription}；已删除的附件为 null` }),
    deleted: z.boolean(),
  })
  .openapi('TicketAttachment');

const replySchema = z
  .object({
    id: z.number().int(),
    author_type: z.enum(['user', 'staff']),
    author_name: z.string().openapi({ description: '客户回复为「我」或「客户」；客服回复为管理员用户名' }),
    body: z.string().openapi({ description: '纯文本，按原样显示（不得作为 HTML 渲染）' }),
    is_internal: z.boolean().openapi({ description: '内部备注（仅管理端可见）' }),
    attachment_ids: z.array(z.number().int()).openapi({ description: '本条回复的附件（见 attachments）' }),
    created_at: dateTimeString.nullable(),
  })
  .openapi('TicketReply');

const threadShape = { replies: z.array(replySchema), attachments: z.array(attachmentSchema).openapi({ description: '各回复的附件（reply_id 指向回复）' }) };
export const ticketDetailSchema = ticketItemSchema.extend(threadShape).openapi('TicketDetail');
export const adminTicketDetailSchema = adminTicketItemSchema.extend(threadShape).openapi('AdminTicketDetail');

function attachmentResource(deps: DomainDeps, row: AttachmentRow, viewer: AssetViewer) {
  return {
    id: row.id,
    reply_id: row.reply_id,
    asset_id: row.asset_id,
    name: row.original_name,
    type: row.mime,
    size: row.size_bytes,
    url: row.deleted ? null : assetUrl(deps, row.asset_id, viewer),
    deleted: row.deleted,
  };
}

/** The thread of a detail: replies (with their attachment ids) and the attachments beside them (answers stay three levels deep). */
export function threadResource(deps: DomainDeps, replies: ReplyRow[], attachments: AttachmentRow[], viewer: AssetViewer) {
  return {
    replies: replies.map((r) => ({
      id: r.id,
      author_type: r.author_type,
      author_name: r.author_type === 'staff' ? (r.admin_name ?? '客服') : viewer.type === 'user' ? '我' : '客户',
      body: r.body,
      is_internal: r.is_internal,
      attachment_ids: attachments.filter((a) => a.reply_id === r.id).map((a) => a.id),
      created_at: formatDateTime(r.created_at),
    })),
    attachments: attachments.map((a) => attachmentResource(deps, a, viewer)),
  };
}

export const uploadedFileSchema = z
  .object({
    asset_id: z.string(),
    name: z.string(),
    type: z.enum(MEDIA_MIME_TYPES).openapi({ description: '由文件内容判定的类型（不是文件名或声明的类型）' }),
    size: z.number().int(),
    sha256: z.string(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    url: z.string().openapi({ description: urlDescription }),
  })
  .openapi('UploadedFile');

export function uploadedFileResource(deps: DomainDeps, row: MediaRow, viewer: AssetViewer | null) {
  return {
    asset_id: row.asset_id,
    name: row.original_name,
    type: row.mime,
    size: row.size_bytes,
    sha256: row.sha256,
    width: row.width,
    height: row.height,
    url: assetUrl(deps, row.asset_id, row.visibility === 'private' ? viewer : null),
  };
}

export const mediaFileSchema = uploadedFileSchema
  .extend({
    id: z.number().int(),
    purpose: z.enum(MEDIA_PURPOSES).openapi({ description: 'content 内容图片（公开）；ticket 工单附件（私有）' }),
    visibility: z.enum(['public', 'private']),
    owner_user_id: z.number().int().nullable(),
    uploaded_by_admin_id: z.number().int().nullable(),
    references: z.number().int().openapi({ description: '被工单回复与首页横幅引用的次数；大于 0 时不能删除' }),
    created_at: dateTimeString.nullable(),
  })
  .openapi('MediaFile');

export function mediaFileResource(deps: DomainDeps, row: MediaRow & { references: number }, viewer: AssetViewer) {
  return {
    id: row.id,
    ...uploadedFileResource(deps, row, viewer),
    purpose: row.purpose,
    visibility: row.visibility,
    owner_user_id: row.owner_user_id,
    uploaded_by_admin_id: row.uploaded_by_admin_id,
    references: row.references,
    created_at: formatDateTime(row.created_at),
  };
}

export const categorySchema = z
  .object({ id: z.number().int(), kind: z.enum(ARTICLE_KINDS), name: z.string(), sort_order: z.number().int(), article_count: z.number().int() })
  .openapi('ContentCategory');

export function categoryResource(row: CategoryRow) {
  return { id: row.id, kind: row.kind, name: row.name, sort_order: row.sort_order, article_count: row.article_count };
}

export const articleItemSchema = z
  .object({
    id: z.number().int(),
    kind: z.enum(ARTICLE_KINDS).openapi({ description: 'notice 公告；help 帮助文章' }),
    category: z.object({ id: z.number().int(), name: z.string() }).nullable(),
    title: z.string(),
    excerpt: z.string().openapi({ description: '正文前 120 个字符（纯文本）' }),
    pinned: z.boolean(),
    published_at: dateTimeString.nullable(),
  })
  .openapi('ArticleItem');

export const articleDetailSchema = articleItemSchema
  .extend({ body: z.string().openapi({ description: '纯文本正文，保留换行，按原样显示（不得作为 HTML 渲染）' }) })
  .openapi('ArticleDetail');

export const adminArticleSchema = articleDetailSchema
  .extend({ status: z.enum(ARTICLE_STATUSES), sort_order: z.number().int(), created_at: dateTimeString.nullable(), updated_at: dateTimeString.nullable() })
  .openapi('AdminArticle');

export const adminArticleItemSchema = articleItemSchema
  .extend({ status: z.enum(ARTICLE_STATUSES), sort_order: z.number().int(), created_at: dateTimeString.nullable(), updated_at: dateTimeString.nullable() })
  .openapi('AdminArticleItem');

export function articleItemResource(row: ArticleRow) {
  return {
    id: row.id,
    kind: row.kind,
    category: row.category_id === null ? null : { id: row.category_id, name: row.category_name ?? '' },
    title: row.title,
    excerpt: row.excerpt,
    pinned: row.pinned,
    published_at: formatDateTime(row.published_at),
  };
}

export function articleDetailResource(row: ArticleDetailRow) {
  return { ...articleItemResource(row), body: row.body };
}

export function adminArticleItemResource(row: ArticleRow) {
  return {
    ...articleItemResource(row),
    status: row.status,
    sort_order: row.sort_order,
    created_at: formatDateTime(row.created_at),
    updated_at: formatDateTime(row.updated_at),
  };
}

export function adminArticleResource(row: ArticleDetailRow) {
  return { ...adminArticleItemResource(row), body: row.body };
}

export const heroSchema = z
  .object({
    title: z.string(),
    subtitle: z.string(),
    image_asset_id: z.string().nullable(),
    image_url: z.string().nullable().openapi({ description: urlDescription }),
    cta_label: z.string(),
    cta_url: z.string(),
    visible: z.boolean(),
  })
  .openapi('HomeHero');

export const adminHeroSchema = heroSchema.extend({ updated_at: dateTimeString.nullable() }).openapi('AdminHomeHero');

export function heroResource(deps: DomainDeps, row: HeroRow) {
  return {
    title: row.title,
    subtitle: row.subtitle,
    image_asset_id: row.image_asset_id,
    image_url: row.image_asset_id ? assetUrl(deps, row.image_asset_id, null) : null,
    cta_label: row.cta_label,
    cta_url: row.cta_url,
    visible: row.visible,
  };
}

import { z } from '@hono/zod-openapi';
import { MEDIA_MIME_TYPES, MEDIA_PURPOSES } from '../../../db/models/support.js';
import { IMAGE_MIME_TYPES } from '../../../domain/media/inspect.js';
import { deleteMedia, listMedia, storeUpload } from '../../../domain/media/media.js';
import { UPLOAD_BODY_CEILING_BYTES, uploadPolicy } from '../../../domain/support/policy.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { mediaFileResource, mediaFileSchema, uploadedFileResource, uploadedFileSchema } from '../../resources/support.js';
import { boolQuery, idParam, idQuery, listQuery } from '../../schemas.js';
import { readUpload, uploadBody } from '../../upload.js';

const tags = ['管理端：内容'];

const uploadImage = defineRoute({
  method: 'post',
  path: '/api/v2/admin/content/upload-image',
  tags,
  summary: '上传内容图片（multipart）',
  description:
    '表单字段 file。类型由文件内容判定，仅支持 PNG、JPEG、WebP、GIF，且须能解码；SVG、HTML（无论文件名）与夹带网页标记的文件一律拒绝（42200），超过大小限制答 41300。文件以随机名保存在非公开目录，记录 SHA-256；答 asset_id 与签名链接（公开图片）。',
  access: { surface: 'admin', permission: 'content.manage' },
  bodyLimitBytes: UPLOAD_BODY_CEILING_BYTES,
  request: uploadBody,
  data: uploadedFileSchema,
});

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/media-files',
  tags,
  summary: '媒体文件列表',
  description: '筛选：purpose（content 内容图片 / ticket 工单附件）、type、user_id（上传的客户）、keyword（文件名）、referenced（是否被引用）。',
  access: { surface: 'admin', permission: 'content.view' },
  request: {
    query: listQuery({
      purpose: z.enum(MEDIA_PURPOSES).optional(),
      type: z.enum(MEDIA_MIME_TYPES).optional(),
      user_id: idQuery().optional(),
      keyword: z.string().max(100, { error: '关键词最多 100 个字符' }).optional(),
      referenced: boolQuery.optional(),
    }),
  },
  data: pageSchema(mediaFileSchema),
});

const remove = defineRoute({
  method: 'delete',
  path: '/api/v2/admin/media-files/{id}',
  tags,
  summary: '删除媒体文件（被工单或首页横幅引用时不能删除）',
  access: { surface: 'admin', permission: 'content.manage' },
  request: { params: idParam('id') },
  data: z.null(),
  errors: [ErrorCode.IN_USE],
});

export const adminMediaRoutes = createRouter()
  .openapi(uploadImage, async (c) => {
    const deps = c.var.deps;
    const { file } = c.req.valid('form');
    const { bytes, name } = await readUpload(file, (await uploadPolicy(deps)).imageMaxBytes);
    const row = await storeUpload(deps, { bytes, name, allowed: IMAGE_MIME_TYPES, purpose: 'content', owner: { type: 'admin', id: c.var.admin.id } });
    return ok(c, uploadedFileResource(deps, row, null), '上传成功');
  })
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listMedia(c.var.deps, { ...query, mime: query.type });
    return ok(c, page(rows.map((r) => mediaFileResource(c.var.deps, r, { type: 'admin', id: c.var.admin.id })), total, query));
  })
  .openapi(remove, async (c) => {
    await deleteMedia(c.var.deps, c.req.valid('param').id);
    return ok(c, null, '已删除');
  });

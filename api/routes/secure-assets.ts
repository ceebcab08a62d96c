import { createRoute, z } from '@hono/zod-openapi';
import { authenticateAdmin, authenticateClient } from '../../domain/auth/sessions.js';
import { type AssetViewer, SECURE_ASSET_PATH, verifyAssetLink } from '../../domain/media/asset-links.js';
import { IMAGE_MIME_TYPES } from '../../domain/media/inspect.js';
import { findMediaByAssetId, readMediaBytes } from '../../domain/media/media.js';
import { ticketOfAttachment } from '../../domain/support/tickets.js';
import { AppError, defaultMessages, ErrorCode, forbidden, notFound } from '../../lib/errors.js';
import type { AppDeps } from '../context.js';
import { errorEnvelopeSchema } from '../envelope.js';
import { bearerToken } from '../middleware/auth.js';
import { guardStrings } from '../middleware/input-guard.js';
import { createRouter, openQuery } from '../openapi/define-route.js';
import { documentAccess, operationIdFor } from '../openapi/operations.js';

const describe = (codes: number[]) => codes.map((c) => `${c} ${defaultMessages[c] ?? ''}`).join('；');
const errorResponse = (codes: number[]) => ({ description: describe(codes), content: { 'application/json': { schema: errorEnvelopeSchema } } });

/** The refusals of every signed link (a file, the two-factor QR image): bad signature, gone, expired, malformed. */
export const SIGNED_LINK_ERRORS = {
  403: errorResponse([ErrorCode.FORBIDDEN]),
  404: errorResponse([ErrorCode.NOT_FOUND]),
  410: errorResponse([ErrorCode.ASSET_LINK_EXPIRED]),
  422: errorResponse([ErrorCode.VALIDATION]),
  500: errorResponse([ErrorCode.INTERNAL]),
};

/** The two query fields every signed link carries beside what it names. */
export const signedLinkFields = {
  expires: z.string().regex(/^[0-9]{1,12}$/, { error: '参数 expires 必须是 Unix 秒' }).transform(Number),
  sig: z.string().max(128, { error: '参数 sig 过长' }),
};

/**
 * The spec's non-JSON resource view: a stored file through a signed, short-lived link. Open
 * (the signature is the access check); a private file's link (ticket attachments) is bound to
 * the user or admin it was issued to, who must present their bearer token as well.
 */
const view = createRoute({
  operationId: operationIdFor('get', SECURE_ASSET_PATH),
  method: 'get',
  path: SECURE_ASSET_PATH,
  tags: ['文件'],
  summary: '查看已上传文件（签名链接）',
  description:
    '公开接口（以签名校验代替登录）。链接由各接口的 url 字段给出：asset、expires（Unix 秒）、sig（HMAC-SHA256）。签名无效、或私有文件（工单附件）的链接未带签发对象的登录令牌（Authorization: Bearer）答 40300；链接过期答 41000（HTTP 410）；文件不存在或已删除答 40400。成功时直接返回文件内容（不套 JSON 信封），带 X-Content-Type-Options: nosniff 与沙箱化的 Content-Security-Policy；非图片文件以附件形式下载。',
  ...documentAccess({ surface: 'public' }),
  // A signed link is opened by browsers, <img> tags, image proxies and CDNs, which may append
  // cache busters; the signature covers asset, expires and sig, and nothing else is read.
  ...openQuery('签名链接：浏览器、图片代理与 CDN 可能附加缓存参数；签名只覆盖 asset、expires、sig，其余参数不被读取'),
  middleware: [guardStrings] as const,
  request: {
    query: z.object({
      asset: z.string().max(64, { error: '参数 asset 过长' }),
      ...signedLinkFields,
    }),
  },
  responses: {
    200: { description: '文件内容', content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } } },
    ...SIGNED_LINK_ERRORS,
  },
});

/** The presented bearer token's principal, if any (an invalid token is simply no viewer). */
async function presentViewer(deps: AppDeps, header: string | undefined): Promise<AssetViewer | null> {
  const token = bearerToken(header);
  if (!token) return null;
  try {
    return { type: 'user', id: (await authenticateClient(deps, token)).id };
  } catch {
    try {
      const admin = await authenticateAdmin(deps, token);
      // A session that must first enrol a second factor sees nothing (docs/security.md).
      return admin.sessionScope === 'enrol' ? null : { type: 'admin', id: admin.id };
    } catch {
      return null;
    }
  }
}

function contentDisposition(name: string, inline: boolean): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\;]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export const secureAssetRoutes = createRouter().openapi(view, async (c) => {
  const deps = c.var.deps;
  const link = c.req.valid('query');
  const viewer = await presentViewer(deps, c.req.header('authorization'));
  const checked = verifyAssetLink(deps, link, viewer);
  const file = await findMediaByAssetId(deps, link.asset);
  if (!file) throw notFound('文件不存在或已删除');
  if (file.visibility === 'private') {
    // A private file is only ever linked privately, and only to its owner, an admin, or the owner of its ticket.
    if (!checked.private || !viewer) throw forbidden('文件链接签名无效，或不属于当前登录账号');
    if (viewer.type === 'user' && file.owner_user_id !== viewer.id) {
      const ticket = await ticketOfAttachment(deps, file.id);
      if (!ticket || ticket.user_id !== viewer.id) throw forbidden('文件链接签名无效，或不属于当前登录账号');
    }
  }
  const bytes = await readMediaBytes(deps, file);
  if (!bytes) throw new AppError(ErrorCode.NOT_FOUND, '文件不存在或已删除');
  const image = IMAGE_MIME_TYPES.includes(file.mime);
  return c.body(new Uint8Array(bytes), 200, {
    'content-type': file.mime === 'text/plain' ? 'text/plain; charset=utf-8' : file.mime,
    'content-length': String(bytes.length),
    'content-disposition': contentDisposition(file.original_name, image),
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
    // Public content images are embedded by the storefront, which may be on another origin.
    'cross-origin-resource-policy': file.visibility === 'private' ? 'same-site' : 'cross-origin',
    'cache-control': file.visibility === 'private' ? 'private, no-store' : 'public, max-age=300',
  }) as never;
});

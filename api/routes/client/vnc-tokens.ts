import { z } from '@hono/zod-openapi';
import { authenticateClient } from '../../../domain/auth/sessions.js';
import { redeemVncToken, relayWebsocketUrl, VNC_PUBLIC_TOKEN_TTL_SECONDS, VNC_RELAY_TOKEN_TTL_SECONDS, VNC_TOKEN_PATTERN } from '../../../domain/services/console/vnc-tokens.js';
import { ErrorCode, notFound, unauthenticated } from '../../../lib/errors.js';
import { formatDateTime } from '../../../lib/time.js';
import { ok } from '../../envelope.js';
import { bearerToken } from '../../middleware/auth.js';
import { requestMeta } from '../../middleware/request-meta.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';

const redeem = defineRoute({
  method: 'get',
  path: '/api/v2/client/vnc-tokens/{token}',
  tags: ['客户端：服务控制台'],
  summary: '兑换 VNC 控制台令牌',
  description:
    `控制台页面用公开令牌（POST /api/v2/client/services/{id}/vnc 的 token，${VNC_PUBLIC_TOKEN_TTL_SECONDS} 秒内有效）换取中继令牌：公开令牌只能兑换一次（并发请求只有一个成功），且必须来自申请令牌时的 IP、服务仍属于该用户并处于运行中；` +
    `带客户登录令牌时还必须是同一用户。中继令牌 ${VNC_RELAY_TOKEN_TTL_SECONDS} 秒内有效、只能使用一次：以 websocket_url?token=<relay_token> 建立 WebSocket（RFB 3.8，安全类型 None；VNC 认证由平台完成）。` +
    '令牌无效、已使用、已过期或不属于当前请求方一律 40400，且不消耗令牌。不返回 VNC 密码或上游地址。',
  access: { surface: 'public' },
  request: { params: z.object({ token: z.string().regex(VNC_TOKEN_PATTERN, { error: '控制台令牌格式不正确' }) }) },
  data: z.object({
    service_id: z.number().int(),
    relay_token: z.string(),
    relay_expires_in: z.number().int(),
    relay_expires_at: z.string(),
    websocket_url: z.string(),
  }),
  errors: [ErrorCode.UNAUTHENTICATED, ErrorCode.FORBIDDEN],
});

/** The console page's step between the public token and the websocket (spec: Authentication 8). */
export const clientVncTokenRoutes = createRouter().openapi(redeem, async (c) => {
  const deps = c.var.deps;
  // Open (the console page has no login), but a caller who is logged in must be the token's user.
  const header = c.req.header('authorization');
  let userId: number | null = null;
  if (header !== undefined) {
    const bearer = bearerToken(header);
    if (!bearer) throw unauthenticated();
    userId = (await authenticateClient(deps, bearer)).id;
  }
  const redeemed = await redeemVncToken(deps, { token: c.req.valid('param').token, ip: requestMeta(c).ip, userId });
  if (!redeemed) throw notFound('控制台令牌无效、已使用或已过期，请重新打开控制台');
  return ok(c, {
    service_id: redeemed.serviceId,
    relay_token: redeemed.relayToken,
    relay_expires_in: VNC_RELAY_TOKEN_TTL_SECONDS,
    relay_expires_at: formatDateTime(redeemed.relayExpiresAt) as string,
    websocket_url: relayWebsocketUrl(deps),
  });
});

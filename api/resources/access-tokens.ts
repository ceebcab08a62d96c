import { z } from '@hono/zod-openapi';
import { TOKEN_SCOPES, type PersonalAccessTokenRow } from '../../db/models/personal-access-token.js';
import { TOKEN_PREFIX, TOKEN_STATUSES, tokenStatus } from '../../domain/auth/personal-tokens.js';
import { ACTOR_TYPES } from '../../lib/actor.js';
import { formatDateTime } from '../../lib/time.js';
import { dateTimeString } from '../schemas.js';

/** A personal access token as lists show it: never its secret, nor the hash of it. */
export const accessTokenSchema = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    name: z.string(),
    token_prefix: z.string().openapi({ description: '令牌的公开前缀（hp_pat_ 加 16 位标识），用于辨认令牌；不含密钥', example: 'hp_pat_0123456789abcdef' }),
    scopes: z.array(z.enum(TOKEN_SCOPES)).openapi({ description: 'read 只读；purchase 购买与支付；console 控制台与电源操作' }),
    status: z.enum(TOKEN_STATUSES).openapi({ description: 'active 有效，expired 已过期，revoked 已吊销' }),
    expires_at: dateTimeString,
    last_used_at: dateTimeString.nullable().openapi({ description: '最近使用时间（每个令牌至多每分钟记录一次）' }),
    last_used_ip: z.string().nullable(),
    created_ip: z.string(),
    created_at: dateTimeString.nullable(),
    revoked_at: dateTimeString.nullable(),
    revoked_by_type: z.enum(ACTOR_TYPES).nullable().openapi({ description: '吊销者类型：user 本人，admin 管理员' }),
  })
  .openapi('AccessToken');

export function accessTokenResource(row: PersonalAccessTokenRow) {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    token_prefix: `${TOKEN_PREFIX}${row.key_id}`,
    scopes: row.scopes,
    status: tokenStatus(row),
    expires_at: formatDateTime(row.expires_at) as string,
    last_used_at: formatDateTime(row.last_used_at),
    last_used_ip: row.last_used_ip,
    created_ip: row.created_ip,
    created_at: formatDateTime(row.created_at),
    revoked_at: formatDateTime(row.revoked_at),
    revoked_by_type: row.revoked_by_type,
  };
}

/** The creation answer: the resource and, this once, the token itself. */
export const createdAccessTokenSchema = accessTokenSchema
  .extend({
    token: z.string().openapi({ description: '完整令牌，仅在创建时返回一次，请立即妥善保存', example: 'hp_pat_0123456789abcdef_…' }),
  })
  .openapi('CreatedAccessToken');

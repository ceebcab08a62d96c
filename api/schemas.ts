import { z } from '@hono/zod-openapi';
import { MONEY_PATTERN } from '../lib/money.js';

export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;

const LEGACY_PAGING_KEYS = ['per_page', 'pageSize', 'limit', 'offset'] as const;

const pagingShape = {
  page: z.coerce
    .number({ error: '页码必须是正整数' })
    .int({ error: '页码必须是正整数' })
    .min(1, { error: '页码必须是正整数' })
    .default(1)
    .openapi({ type: 'integer', minimum: 1, default: 1, description: '页码，从 1 开始' }),
  page_size: z.coerce
    .number({ error: '每页条数必须是整数' })
    .int({ error: '每页条数必须是整数' })
    .min(1, { error: `每页条数必须在 1 到 ${PAGE_SIZE_MAX} 之间` })
    .max(PAGE_SIZE_MAX, { error: `每页条数必须在 1 到 ${PAGE_SIZE_MAX} 之间` })
    .default(PAGE_SIZE_DEFAULT)
    .openapi({ type: 'integer', minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT, description: '每页条数' }),
};

/**
 * Query schema of every list: `page` and `page_size` plus the list's own filters. The legacy
 * paging names are refused by name (spec: Conventions, Versioning 2) rather than ignored.
 */
export function listQuery<S extends z.ZodRawShape>(shape: S) {
  return z
    .looseObject({ ...pagingShape, ...shape })
    .superRefine((value, ctx) => {
      for (const key of LEGACY_PAGING_KEYS) {
        if (key in value) {
          ctx.addIssue({ code: 'custom', path: [key], message: `不支持 ${key} 分页参数，请使用 page 和 page_size` });
        }
      }
    });
}

export type Paging = { page: number; page_size: number };

const TRUE_VALUES = ['1', 'true', 'on', 'yes'];
const BOOL_VALUES = [...TRUE_VALUES, '0', 'false', 'off', 'no'] as const;

/** Boolean query value: 1/0, true/false, on/off, yes/no; anything else fails validation. */
export const boolQuery = z
  .string()
  .refine((v) => (BOOL_VALUES as readonly string[]).includes(v.toLowerCase()), {
    error: '布尔值只能是 1/0、true/false、on/off 或 yes/no',
  })
  .transform((v) => TRUE_VALUES.includes(v.toLowerCase()))
  .openapi({ type: 'string', enum: [...BOOL_VALUES], description: '布尔值：1/0、true/false、on/off、yes/no' });

/** A sort key mapped through a whitelist; `-field` sorts descending. */
export function sortQuery<const K extends string>(keys: readonly K[]) {
  const allowed = keys.flatMap((k) => [k, `-${k}`]);
  return z
    .string()
    .refine((v) => allowed.includes(v), { error: `排序字段只能是：${allowed.join('、')}` })
    .transform((v) => ({ key: v.replace(/^-/, '') as K, direction: v.startsWith('-') ? ('DESC' as const) : ('ASC' as const) }))
    .openapi({ type: 'string', enum: allowed, description: '排序字段，前缀 - 表示倒序' });
}

/** Money input: a JSON number or decimal string with at most two fraction digits, in yuan. */
export const moneyInput = z
  .union([z.string(), z.number()])
  .refine((v) => MONEY_PATTERN.test(typeof v === 'number' ? String(v) : v.trim()), {
    error: '金额格式不正确，最多两位小数',
  })
  .transform((v) => (typeof v === 'number' ? String(v) : v.trim()))
  .openapi({ type: 'string', example: '100.00', description: '金额（元），最多两位小数' });

export const idsBody = z.object({
  ids: z
    .array(z.number().int().positive(), { error: 'ids 必须是整数数组' })
    .min(1, { error: 'ids 不能为空' })
    .max(PAGE_SIZE_MAX, { error: `ids 最多 ${PAGE_SIZE_MAX} 个` }),
});

const positiveId = z.coerce
  .number({ error: '编号必须是正整数' })
  .int({ error: '编号必须是正整数' })
  .positive({ error: '编号必须是正整数' });

/** A path parameter holding a positive integer id, named as in the route path. */
export function idParam<const N extends string>(name: N) {
  const shape = { [name]: positiveId.openapi({ param: { name, in: 'path' }, type: 'integer' }) } as {
    [K in N]: typeof positiveId;
  };
  return z.object(shape);
}

export const moneyString = z.string().regex(/^-?\d+\.\d{2}$/).openapi({ example: '100.00', description: '金额（元），两位小数字符串' });
export const dateTimeString = z
  .string()
  .openapi({ example: '2026-01-01 08:00:00', description: '日期时间，YYYY-MM-DD HH:mm:ss，Asia/Shanghai' });

/** A required JSON request body for `defineRoute({ request })`. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { body: { content: { 'application/json': { schema } }, required: true } };
}

/** A password being set: 8 to 72 characters (argon2 input stays bounded). */
export const newPassword = z.string().min(8, { error: '密码至少 8 位' }).max(72, { error: '密码最多 72 位' });

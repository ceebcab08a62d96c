import { z } from '@hono/zod-openapi';
import { MONEY_PATTERN } from '../lib/money.js';
import { LIST_WINDOW, LOG_LIST_WINDOW, lastPageWithin } from '../lib/paging.js';

export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;

export const LEGACY_PAGING_KEYS = ['per_page', 'pageSize', 'limit', 'offset'] as const;

/** No page lies past the paging window (lib/paging.ts), whatever its size. */
export const PAGE_MAX = LIST_WINDOW;

/**
 * A whole number written the plain way in a query or path (`12`): no sign, no leading zero,
 * no spaces, no `0x10`, `1.0` or `1e3`, which `z.coerce.number()` would all accept.
 */
function plainInteger(message: string, min: number, max: number, rangeMessage = message) {
  return z
    .string({ error: message })
    .regex(/^(0|[1-9][0-9]{0,15})$/, { error: message })
    .transform(Number)
    .pipe(z.number().min(min, { error: rangeMessage }).max(max, { error: rangeMessage }));
}

/**
 * `page` and `page_size` of a list whose pages stop at `window` rows. The document's `maximum` of
 * `page` is the deepest page the window allows (at one row a page): what a client, and the scale
 * bench's deep page (bench/scale/route-scan.ts), read the window from.
 */
const pagingShape = (window: number) => ({
  page: plainInteger('页码必须是正整数', 1, PAGE_MAX, `页码必须在 1 到 ${PAGE_MAX} 之间`)
    .default(1)
    .openapi({
      type: 'integer',
      minimum: 1,
      maximum: Math.min(PAGE_MAX, window),
      default: 1,
      description: `页码，从 1 开始；page × page_size 不超过列表的翻阅窗口（列表只能翻阅按其排序的前 ${LIST_WINDOW} 条，日志列表前 ${LOG_LIST_WINDOW} 条；total 至多计到窗口大小，等于它表示至少这么多条）`,
    }),
  page_size: plainInteger('每页条数必须是整数', 1, PAGE_SIZE_MAX, `每页条数必须在 1 到 ${PAGE_SIZE_MAX} 之间`)
    .default(PAGE_SIZE_DEFAULT)
    .openapi({ type: 'integer', minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT, description: '每页条数' }),
});

/**
 * Query schema of every list: `page` and `page_size` plus the list's own filters. The legacy
 * paging names are refused by name (spec: Conventions, Versioning 2) rather than ignored.
 * `window`: the rows the list reaches (the log lists: `logListQuery`); a page past it is refused.
 */
export function listQuery<S extends z.ZodRawShape>(shape: S, options: { window?: number } = {}) {
  const window = options.window ?? LIST_WINDOW;
  const full = { ...pagingShape(window), ...shape };
  return z
    .looseObject(full)
    .superRefine((value, ctx) => {
      for (const key of LEGACY_PAGING_KEYS) {
        if (key in value) {
          ctx.addIssue({ code: 'custom', path: [key], message: `不支持 ${key} 分页参数，请使用 page 和 page_size` });
        }
      }
      const { page, page_size: pageSize } = value as { page?: unknown; page_size?: unknown };
      if (typeof page === 'number' && typeof pageSize === 'number' && page * pageSize > window) {
        const last = lastPageWithin(pageSize, window);
        ctx.addIssue({ code: 'custom', path: ['page'], message: `只能翻阅前 ${window} 条记录（每页 ${pageSize} 条时至多第 ${last} 页），请缩小筛选范围` });
      }
    })
    .transform((value) => {
      // Other unknown keys never get here: defineRoute refuses them first (api/middleware/query-keys.ts).
      const known: Record<string, unknown> = {};
      for (const key of Object.keys(full)) if (key in value) known[key] = (value as Record<string, unknown>)[key];
      return known as z.infer<z.ZodObject<typeof full>>;
    });
}

export type Paging = { page: number; page_size: number };

/**
 * Query schema of a log list (request, audit, plugin runtime, task run and notification logs):
 * `listQuery` whose pages stop at LOG_LIST_WINDOW rows (`page × page_size`, 42200 past it; its
 * `total` is counted up to the same bound: domain/logs/log-list.ts).
 */
export function logListQuery<S extends z.ZodRawShape>(shape: S) {
  return listQuery(shape, { window: LOG_LIST_WINDOW });
}

/** What every log list's description says of `total` and deep pages (one text, docs/operations.md). */
export const LOG_LIST_NOTE = `total 为符合条件的记录数，最多计到 ${LOG_LIST_WINDOW}（达到 ${LOG_LIST_WINDOW} 表示至少这么多条）；只能翻到前 ${LOG_LIST_WINDOW} 条（page × page_size ≤ ${LOG_LIST_WINDOW}，超过返回 42200），更早的记录请用日期或其他筛选条件缩小范围。`;

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

/** Ids are PostgreSQL INTEGER columns: 1 to 2^31 - 1. A larger id names nothing that can exist. */
export const ID_MAX = 2_147_483_647;

/** An id in a JSON body: a JSON integer within the id range. */
export const idInput = (message = '编号必须是正整数') =>
  z
    .number({ error: message })
    .int({ error: message })
    .min(1, { error: message })
    .max(ID_MAX, { error: '编号超出范围' })
    .openapi({ type: 'integer', minimum: 1, maximum: ID_MAX });

/** An id in a query filter, written plainly (see plainInteger). */
export const idQuery = (message = '编号必须是正整数') =>
  plainInteger(message, 1, ID_MAX, '编号超出范围').openapi({ type: 'integer', minimum: 1, maximum: ID_MAX });

export const idsBody = z.object({
  ids: z
    .array(idInput(), { error: 'ids 必须是整数数组' })
    .min(1, { error: 'ids 不能为空' })
    .max(PAGE_SIZE_MAX, { error: `ids 最多 ${PAGE_SIZE_MAX} 个` }),
});

const positiveId = plainInteger('编号必须是正整数', 1, ID_MAX, '编号超出范围');

/** A path parameter holding a positive integer id, named as in the route path. */
export function idParam<const N extends string>(name: N) {
  const shape = { [name]: positiveId.openapi({ param: { name, in: 'path' }, type: 'integer', minimum: 1, maximum: ID_MAX }) } as {
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

/** A calendar day in a query (`2026-01-31`, Asia/Shanghai), years 2000 to 2099; a day that does not exist fails. */
export const dateQuery = z
  .string()
  .regex(/^20\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, { error: '日期格式必须是 YYYY-MM-DD' })
  .refine((v) => {
    const [y, m, d] = v.split('-').map(Number) as [number, number, number];
    const date = new Date(Date.UTC(y, m - 1, d));
    return date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
  }, { error: '日期不存在' })
  .openapi({ type: 'string', example: '2026-01-31', description: '日期，YYYY-MM-DD（Asia/Shanghai）' });

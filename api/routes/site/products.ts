import { z } from '@hono/zod-openapi';
import { BILLING_PERIODS } from '../../../domain/catalogue/billing-periods.js';
import { quoteForUser, undiscountedQuote } from '../../../domain/marketing/quote.js';
import { authenticateClient } from '../../../domain/auth/sessions.js';
import { bearerToken } from '../../middleware/auth.js';
import { discountedQuoteSchema } from '../../resources/quote.js';
import { MAX_QUOTE_QUANTITY } from '../../../domain/catalogue/pricing.js';
import { PRODUCT_TYPES } from '../../../db/models/catalogue.js';
import { quoteListedProduct } from '../../../domain/catalogue/quote.js';
import { findSiteProduct, listSiteProducts, SITE_PRODUCT_SORT_KEYS } from '../../../domain/catalogue/site-catalogue.js';
import { loadListedProduct } from '../../../domain/catalogue/site-cache.js';
import { assertNotHeldBelowCost } from '../../../domain/economics/hold.js';
import { ErrorCode, notFound } from '../../../lib/errors.js';
import { cachedComputedData, cachedData, okCached, present } from '../../cached-envelope.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { siteProductDetailResource, siteProductDetailSchema, siteProductItemResource, siteProductItemSchema } from '../../resources/site-catalogue.js';
import { idParam, idQuery, jsonBody, listQuery, sortQuery } from '../../schemas.js';

const tags = ['站点：商品'];
const open = { surface: 'public' } as const;
const optionalId = idQuery().optional();
const UNLISTED = '商品不存在或已下架';

const list = defineRoute({
  method: 'get',
  path: '/api/v2/site/products',
  tags,
  summary: '在售商品列表',
  description: '只含在售商品（上架，且所属菜单、分组、分类均显示）。筛选：一级菜单、二级分组、三级分类、类型、关键字。sort 可选 sort_order（默认）、price（主价格）、name、id、created_at，前缀 - 倒序。',
  access: open,
  request: {
    query: listQuery({
      first_product_group_id: optionalId,
      second_product_group_id: optionalId,
      product_group_id: optionalId,
      product_type: z.enum(PRODUCT_TYPES).optional(),
      keyword: z.string().max(100).optional(),
      sort: sortQuery(SITE_PRODUCT_SORT_KEYS).optional(),
    }),
  },
  data: pageSchema(siteProductItemSchema),
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/site/products/{productId}',
  tags,
  summary: '商品详情（模板、能力、价格与配置项）',
  description: '不存在、已删除、已下架或所属菜单/分组/分类隐藏时 40400。',
  access: open,
  request: { params: idParam('productId') },
  data: siteProductDetailSchema,
});

const quote = defineRoute({
  method: 'post',
  path: '/api/v2/site/products/{productId}/quote',
  tags,
  summary: '商品报价',
  description: `total_amount = (基础价格 + 各所选子选项价格，数量型按每单位) × quantity，decimal 精确计算，两位小数。quantity 1 到 ${MAX_QUOTE_QUANTITY}（默认 1）；config 以配置项字段为键，选择型填子选项编号，数量型填数量，未填取默认值，隐藏项不可选。无效计费周期或配置 42200（data.errors 指明 billing_period、config.<field>、quantity）；商品不存在或未在售 40400；不可在线购买 40903；库存不足 40902；上游成本已高于售价且开启了低于成本暂停销售 40904。开账单使用同一个计价函数，报价与账单一致。带客户端令牌时计入该用户的会员折扣；coupon_code 需要登录（否则 42200），不可用时 42200（data.errors.coupon_code）。折扣为负数明细行，subtotal_amount 为折扣前合计。带令牌的报价不缓存。`,
  access: open,
  request: {
    params: idParam('productId'),
    ...jsonBody(
      z.object({
        billing_period: z.unknown().openapi({ type: 'string', enum: [...BILLING_PERIODS], description: '计费周期' }),
        config: z.unknown().optional().openapi({ type: 'object', description: '字段 → 子选项编号或数量', example: { cpu: 2, os: 11, ip_num: 2 } }),
        quantity: z.unknown().optional().openapi({ type: 'integer', minimum: 1, maximum: MAX_QUOTE_QUANTITY, default: 1 }),
        coupon_code: z.string().max(32).optional().openapi({ description: '优惠码（需登录）' }),
      }),
    ),
  },
  data: discountedQuoteSchema,
  errors: [ErrorCode.OUT_OF_STOCK, ErrorCode.NOT_PURCHASABLE_ONLINE, ErrorCode.PRICE_BELOW_UPSTREAM_COST],
});

export const siteProductRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const data = await cachedData(c.var.deps, `products:${JSON.stringify(query)}`, async () => {
      const { rows, total } = await listSiteProducts(c.var.deps, query);
      return page(rows.map(siteProductItemResource), total, query);
    });
    return okCached(c, present(data));
  })
  .openapi(detail, async (c) => {
    const id = c.req.valid('param').productId;
    const data = await cachedData(c.var.deps, `product:${id}`, async () => {
      const row = await findSiteProduct(c.var.deps, id);
      return row ? siteProductDetailResource(row) : null;
    });
    if (!data) throw notFound(UNLISTED);
    return okCached(c, data);
  })
  .openapi(quote, async (c) => {
    const productId = c.req.valid('param').productId;
    const body = c.req.valid('json');
    const userId = await optionalClientId(c.var.deps, c.req.header('authorization'));
    if (userId !== null || body.coupon_code) {
      // The user's own discounts (member level, coupon): the invoice's pricing, never cached.
      const quote = await quoteForUser(c.var.deps, { userId, productId, billingPeriod: body.billing_period, config: body.config, quantity: body.quantity, couponCode: body.coupon_code ?? null });
      return ok(c, quote, '报价成功');
    }
    // The hold is checked outside the cached answer: it follows the setting as well as the catalogue.
    const held = await loadListedProduct(c.var.deps, productId);
    if (held) await assertNotHeldBelowCost(c.var.deps, held);
    const compute = async () => {
      const product = await loadListedProduct(c.var.deps, productId);
      if (!product) throw notFound(UNLISTED);
      return undiscountedQuote(quoteListedProduct(product, { billingPeriod: body.billing_period, config: body.config, quantity: body.quantity }));
    };
    // A quote is a pure function of the catalogue (prices, options, stock): the same selection is
    // answered from memory until the next catalogue change (a write, or stock sold at payment).
    const key = quoteKey(productId, body);
    if (key === null) return ok(c, await compute(), '报价成功');
    // Remembered by body unless the product is flagged below cost (its answer then follows a setting too).
    return okCached(c, await cachedComputedData(c.var.deps, key, compute), '报价成功', held !== null && !held.below_cost);
  });

/** The signed-in client of an optional bearer token; anyone else (no token, a bad or admin token) quotes anonymously. */
async function optionalClientId(deps: Parameters<typeof authenticateClient>[0], header: string | undefined): Promise<number | null> {
  const token = bearerToken(header);
  if (!token) return null;
  try {
    return (await authenticateClient(deps, token)).id;
  } catch {
    return null;
  }
}

/** The memo key of a quote request (config keys in a fixed order), or null when too long to keep. */
function quoteKey(productId: number, body: { billing_period: unknown; config?: unknown; quantity?: unknown }): string | null {
  const config = body.config !== null && typeof body.config === 'object' && !Array.isArray(body.config)
    ? Object.fromEntries(Object.entries(body.config as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : body.config;
  const key = `quote:${productId}:${JSON.stringify([body.billing_period, config ?? null, body.quantity ?? null])}`;
  return key.length <= 1_024 ? key : null;
}

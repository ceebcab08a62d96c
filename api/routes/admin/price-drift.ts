import { z } from '@hono/zod-openapi';
import { acknowledgePriceFinding, FINDING_KINDS, FINDING_STATES, listPriceFindings, summarisePriceFindings } from '../../../domain/economics/findings.js';
import { repriceProduct } from '../../../domain/economics/reprice.js';
import { adminActor } from '../../../lib/actor.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { priceFindingResource, priceFindingSchema } from '../../resources/economics/price-drift.js';
import { idParam, idQuery, listQuery, moneyString } from '../../schemas.js';

const tags = ['管理端：经营'];
const base = '/api/v2/admin/economics/price-drift';

const filters = {
  state: z.enum(FINDING_STATES, { error: '状态只能是 open、acknowledged 或 resolved' }).optional(),
  kind: z.enum(FINDING_KINDS, { error: '类型只能是 price 或 renewal' }).optional(),
  product_id: idQuery('商品编号必须是正整数').optional(),
  supplier_id: idQuery('供应商编号必须是正整数').optional(),
};

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '上游价格漂移列表',
  description:
    '计划任务 upstream.price-drift（每小时，或经 POST /api/v2/admin/schedules/upstream.price-drift/trigger 立即运行）比较已绑定商品的上游价格与本站售价：任一计费周期或配置选项的毛利率低于下限（经营设置 margin_floor_percent，默认 10%）即记一条，含变化前后的上游价格、本站售价与毛利率；每次价格变化只记一条，重复运行不重复。kind=renewal 为按服务续费价已亏损的现有服务（只标记，续费从不拒绝）。' +
    '有多个上游绑定的商品逐个绑定检查，每条记录注明其绑定（binding_id）与供应商（supplier_id、supplier_name）；续费只与持有该服务主机的绑定比较。' +
    '开启低于成本暂停销售时，只有同一价格点所有绑定（供应商启用中）都低于成本，商品才暂停销售。筛选：state、kind、product_id、supplier_id；按编号倒序。',
  access: { surface: 'admin', permission: 'economics.view' },
  request: { query: listQuery(filters) },
  data: pageSchema(priceFindingSchema),
});

const summary = defineRoute({
  method: 'get',
  path: `${base}/summary`,
  tags,
  summary: '上游价格漂移统计',
  description: '与列表相同的筛选（不分页）：各状态数量、未解决的低于成本记录与亏损续费数、涉及商品数与当前暂停销售的商品数，以及当前的下限与暂停设置。',
  access: { surface: 'admin', permission: 'economics.view' },
  request: { query: z.object(filters) },
  data: z.object({
    total: z.number().int(),
    by_state: z.object({ open: z.number().int(), acknowledged: z.number().int(), resolved: z.number().int() }),
    below_cost_open: z.number().int(),
    renewals_at_loss_open: z.number().int(),
    products_flagged: z.number().int(),
    products_held: z.number().int(),
    margin_floor_percent: z.number(),
    hold_below_cost: z.boolean(),
  }),
});

const acknowledge = defineRoute({
  method: 'post',
  path: `${base}/{id}/acknowledge`,
  tags,
  summary: '确认价格漂移',
  description: '待处理 → 已确认；重复确认原样返回，已解决的记录 40900。确认不解除暂停销售：重新定价（或上游价格回落后的下一次检查）才会解决记录。',
  access: { surface: 'admin', permission: 'economics.manage' },
  request: { params: idParam('id') },
  data: priceFindingSchema,
});

const reprice = defineRoute({
  method: 'post',
  path: '/api/v2/admin/products/{id}/reprice',
  tags,
  summary: '按导入加价规则重新定价',
  description:
    '读取上游当前价格，按商品导入时的加价规则（percent：所有价格乘以 1 + 比例；fixed：基础价格加固定金额）重算本站在售计费周期的基础价格与全部配置选项价格，记录商品变更日志，并立即重新检查该商品的价格漂移（已由新价格解决的记录变为已解决，暂停销售随之解除）。有多个上游绑定时按第一个绑定的上游价格与加价规则定价，其他绑定的价格点也按新售价重新记录。未绑定供应商商品或没有导入加价规则 42200。',
  access: { surface: 'admin', permission: 'economics.manage' },
  request: { params: idParam('id') },
  data: z.object({
    product_id: z.number().int(),
    price_rule: z.object({ type: z.enum(['percent', 'fixed']), value: z.string() }),
    before: z.record(z.string(), moneyString),
    pricing: z.record(z.string(), moneyString),
    resolved: z.number().int().openapi({ description: '因此解决的价格漂移记录数' }),
  }),
});

export const adminPriceDriftRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listPriceFindings(c.var.deps, query);
    return ok(c, page(rows.map(priceFindingResource), total, query));
  })
  .openapi(summary, async (c) => ok(c, await summarisePriceFindings(c.var.deps, c.req.valid('query'))))
  .openapi(acknowledge, async (c) =>
    ok(c, priceFindingResource(await acknowledgePriceFinding(c.var.deps, c.req.valid('param').id, adminActor(c.var.admin))), '已确认'),
  )
  .openapi(reprice, async (c) => ok(c, await repriceProduct(c.var.deps, c.req.valid('param').id, adminActor(c.var.admin)), '已按加价规则重新定价'));

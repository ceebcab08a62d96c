import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../../lib/errors.js';
import { userAudit } from '../../../domain/billing/audit.js';
import { getInvoiceDetail } from '../../../domain/billing/invoices/get-invoice-detail.js';
import { cancelPendingUpgrade, createUpgradeInvoice, quoteUpgrade } from '../../../domain/services/upgrades/create-upgrade-invoice.js';
import { listUpgradeOptions } from '../../../domain/services/upgrades/upgrade-options.js';
import { ok } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { invoiceDetailResource, invoiceDetailSchema } from '../../resources/billing/invoice.js';
import { upgradeOptionsResource, upgradeOptionsSchema, upgradeQuoteResource, upgradeQuoteSchema } from '../../resources/upgrades.js';
import { ID_MAX, idParam, jsonBody } from '../../schemas.js';

const tags = ['客户端：服务升降级'];
const RULE = [
  '按剩余天数折算（Asia/Shanghai 日历）：本周期为到期日往前推服务自身周期长度；剩余天数 = 到期日 − 今天；差额 = (新价格 − 锁定价格) × 剩余天数 / 周期天数，精确计算后四舍五入到分（只舍入一次）。抵扣按服务本周期的锁定价格计算（不按上一次折算的金额）；到期日不变。',
  '新价格为商品当前目录中该配置在服务周期下的价格，变更完成后成为服务的锁定价格（本周期剩余时间及以后续费）。地域与操作系统不能通过升降级修改。',
  '服务需运行中、非一次性付费且有到期时间（40961）。',
].join('\n\n');
const SERVICE_ERRORS = [ErrorCode.SERVICE_NOT_UPGRADABLE];

const MAX_CHANGES = 10;
const changeBody = jsonBody(
  z.object({
    config: z
      .record(
        z.string().min(1).max(32),
        z.number({ error: '取值必须是整数（子选项编号或数量）' }).int({ error: '取值必须是整数（子选项编号或数量）' }).min(0, { error: '取值不能为负数' }).max(ID_MAX, { error: '取值超出范围' }),
        { error: 'config 必须是以配置项字段为键的对象' },
      )
      .refine((c) => Object.keys(c).length >= 1 && Object.keys(c).length <= MAX_CHANGES, { error: `请选择 1 到 ${MAX_CHANGES} 个要变更的配置项` })
      .openapi({ type: 'object', description: '要变更的配置项：字段 → 子选项编号或数量（未列出的保持不变）', example: { cpu: 10103, memory: 10203 } }),
    coupon_code: z.string().trim().min(1).max(64).optional().openapi({ description: '优惠码（可用于升级的优惠券；会员折扣自动计入）' }),
  }),
);

const options = defineRoute({
  method: 'get',
  path: '/api/v2/client/services/{id}/upgrade',
  tags,
  summary: '可升降级的配置',
  description: `商品允许的每个可变更配置项及其其他取值（每次只改一项、其余不变）的新价格、每周期差价与按剩余天数折算的金额。\n\n${RULE}`,
  access: { surface: 'client' },
  request: { params: idParam('id') },
  data: upgradeOptionsSchema,
  errors: SERVICE_ERRORS,
});

const quote = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/upgrade/quote',
  tags,
  summary: '升降级报价',
  description: `只计算，不写入。配置项不存在、不可变更、取值无效或与当前配置相同：42200（config 或 config.<field>）。\n\n${RULE}`,
  access: { surface: 'client', tokenScope: 'purchase' },
  request: { params: idParam('id'), ...changeBody },
  data: upgradeQuoteSchema,
  errors: SERVICE_ERRORS,
});

const create = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/upgrade',
  tags,
  summary: '创建升降级账单',
  description: [
    RULE,
    '答复账单详情（报价见 upgrade/quote，同一计价函数）。账单类型 upgrade，金额为报价的 amount：升级按差额通过 pay/* 支付（仅在报价当天可支付，过期 40962，次日由取消过期账单任务取消）；降级账单为 0.00 并立即结清，差额在上游确认变更后作为账户流水（upgrade_credit）退还至余额。',
    '支付后工作流 upgrade:<invoice_no> 向上游提交一次配置变更（含糊结果先核对再继续），上游确认后才更新服务配置与锁定价格；上游拒绝时等待管理员重试或取消（退款至余额）。',
    '每个服务同时只能有一项待处理的配置变更：已有未支付或处理中的变更、或有未完成的续费时 40960。',
  ].join('\n\n'),
  access: { surface: 'client', tokenScope: 'purchase' },
  request: { params: idParam('id'), ...changeBody },
  data: invoiceDetailSchema,
  errors: [...SERVICE_ERRORS, ErrorCode.UPGRADE_PENDING],
  idempotent: true,
});

const cancel = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/upgrade/cancel',
  tags,
  summary: '取消待支付的升降级',
  description: '取消该服务未支付的升降级账单，释放待处理的配置变更。没有待支付的变更 40400；有进行中的扫码支付 40913。已支付的变更不能由用户取消。',
  access: { surface: 'client', tokenScope: 'purchase' },
  request: { params: idParam('id') },
  data: invoiceDetailSchema,
  errors: [ErrorCode.PAYMENT_IN_PROGRESS, ErrorCode.INVOICE_NOT_PAYABLE],
});

export const clientServiceUpgradeRoutes = createRouter()
  .openapi(options, async (c) => {
    const found = await listUpgradeOptions(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id });
    return ok(c, upgradeOptionsResource(found));
  })
  .openapi(quote, async (c) => {
    const body = c.req.valid('json');
    const priced = await quoteUpgrade(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, config: body.config, couponCode: body.coupon_code });
    return ok(c, upgradeQuoteResource(priced));
  })
  .openapi(create, async (c) => {
    const userId = c.var.client.id;
    const { invoice, quote: priced } = await createUpgradeInvoice(
      c.var.deps,
      { serviceId: c.req.valid('param').id, userId, config: c.req.valid('json').config, couponCode: c.req.valid('json').coupon_code },
      userAudit(userId, c.var.requestId),
    );
    const found = await getInvoiceDetail(c.var.deps, invoice.id, userId);
    return ok(c, invoiceDetailResource(found.invoice, found.items, found.order), priced.direction === 'upgrade' ? '升级账单已创建，请支付' : '降级已提交，上游确认后退还差价');
  })
  .openapi(cancel, async (c) => {
    const userId = c.var.client.id;
    const cancelled = await cancelPendingUpgrade(c.var.deps, { serviceId: c.req.valid('param').id, userId });
    const found = await getInvoiceDetail(c.var.deps, cancelled.id, userId);
    return ok(c, invoiceDetailResource(found.invoice, found.items, found.order), '升降级账单已取消');
  });

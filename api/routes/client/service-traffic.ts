import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../../lib/errors.js';
import { userAudit } from '../../../domain/billing/audit.js';
import { getInvoiceDetail } from '../../../domain/billing/invoices/get-invoice-detail.js';
import { createTrafficPackageInvoice } from '../../../domain/services/traffic/create-traffic-invoice.js';
import { listTrafficPackages, quoteTrafficPackage } from '../../../domain/services/traffic/traffic-packages.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { invoiceDetailResource, invoiceDetailSchema } from '../../resources/billing/invoice.js';
import { trafficPackageResource, trafficPackageSchema, trafficQuoteResource, trafficQuoteSchema } from '../../resources/traffic-packages.js';
import { idInput, idParam, jsonBody, listQuery } from '../../schemas.js';

const tags = ['客户端：服务续费与流量包'];
const UPSTREAM_ERRORS = [
  ErrorCode.SERVICE_CONSOLE_READ_ONLY,
  ErrorCode.SERVICE_NOT_ACTIVE,
  ErrorCode.SERVICE_ACTION_UNSUPPORTED,
  ErrorCode.SUPPLIER_REFUSED,
  ErrorCode.DEPENDENCY_UNAVAILABLE,
];
const PRICE_RULE =
  '价格：上游为该主机出售的流量包价格，按服务商品绑定（导入时）的加价规则计算：percent 按比例加价，fixed 只加在商品基础价上、流量包保持上游价；四舍五入到分。需要上游绑定且服务运行中（40943、40944），服务类型需支持流量包（40947）。';
const packageBody = jsonBody(z.object({ package_id: idInput('请选择流量包') }));

const list = defineRoute({
  method: 'get',
  path: '/api/v2/client/services/{id}/traffic-packages',
  tags,
  summary: '流量包列表',
  description: PRICE_RULE,
  access: { surface: 'client' },
  request: { params: idParam('id'), query: listQuery({}) },
  data: pageSchema(trafficPackageSchema),
  errors: UPSTREAM_ERRORS,
});

const quote = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/traffic-packages/quote',
  tags,
  summary: '流量包报价',
  description: `${PRICE_RULE}上游不出售该流量包时 42200（package_id）。`,
  access: { surface: 'client', tokenScope: 'purchase' },
  request: { params: idParam('id'), ...packageBody },
  data: trafficQuoteSchema,
  errors: UPSTREAM_ERRORS,
});

const order = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/traffic-packages/order',
  tags,
  summary: '创建流量包账单',
  description: [
    `${PRICE_RULE}`,
    '账单类型 traffic_package，按报价金额，通过 pay/* 支付；支付后工作流 traffic:<invoice_no> 向上游购买一次并记录结果。',
    '每个服务同时只能有一张未支付的流量包账单：相同流量包返回已有账单，其他流量包 40946（请先支付或取消）；上一个流量包仍在购买中 40941。',
  ].join('\n\n'),
  access: { surface: 'client', tokenScope: 'purchase' },
  request: { params: idParam('id'), ...packageBody },
  data: invoiceDetailSchema,
  errors: [...UPSTREAM_ERRORS, ErrorCode.TRAFFIC_INVOICE_EXISTS, ErrorCode.SERVICE_ORDER_IN_PROGRESS],
  idempotent: true,
});

export const clientServiceTrafficRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const offers = await listTrafficPackages(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id });
    const start = (query.page - 1) * query.page_size;
    return ok(c, page(offers.slice(start, start + query.page_size).map(trafficPackageResource), offers.length, query));
  })
  .openapi(quote, async (c) => {
    const { service, offer } = await quoteTrafficPackage(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id, packageId: c.req.valid('json').package_id });
    return ok(c, trafficQuoteResource(service.id, offer));
  })
  .openapi(order, async (c) => {
    const userId = c.var.client.id;
    const { invoice, created } = await createTrafficPackageInvoice(
      c.var.deps,
      { serviceId: c.req.valid('param').id, userId, packageId: c.req.valid('json').package_id },
      userAudit(userId, c.var.requestId),
    );
    const found = await getInvoiceDetail(c.var.deps, invoice.id, userId);
    return ok(c, invoiceDetailResource(found.invoice, found.items, found.order), created ? '流量包账单已创建' : '已有该流量包的未支付账单');
  });

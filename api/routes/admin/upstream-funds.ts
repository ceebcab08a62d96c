import { z } from '@hono/zod-openapi';
import { type FundsAlertRow, listFundsAlerts, listSupplierFunds, type SupplierFundsRow } from '../../../domain/economics/funds.js';
import { formatMoney, money } from '../../../lib/money.js';
import { formatDateTime } from '../../../lib/time.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { dateTimeString, idQuery, listQuery } from '../../schemas.js';

const tags = ['管理端：经营'];
const view = { surface: 'admin', permission: 'economics.view' } as const;
const base = '/api/v2/admin/economics/funds';

const moneyOrNull = (v: string | null) => (v === null ? null : formatMoney(v));

const supplierFundsSchema = z
  .object({
    supplier_id: z.number().int(),
    supplier_code: z.string(),
    supplier_name: z.string(),
    balance: z.string().nullable().openapi({ description: '上游账户余额（最近一次读取）；从未读取为 null' }),
    currency: z.string().nullable(),
    read_at: dateTimeString.nullable(),
    awaiting_funds: z.number().int().openapi({ description: '等待上游余额（awaiting_upstream_funds）的开通与服务订单数' }),
    shortage_open: z.boolean().openapi({ description: '当前是否有未解除的余额不足提醒' }),
    runway: z
      .object({
        days: z.number().int(),
        cost: z.string().openapi({ description: '未来 days 天内到期续费的预计上游成本' }),
        renewals: z.number().int(),
        estimated: z.number().int().openapi({ description: '其中无上游价格、按服务售价估算的续费数' }),
        covered: z.boolean().nullable().openapi({ description: '余额是否足够；余额未知为 null' }),
        forecast_at: dateTimeString.nullable(),
      })
      .nullable()
      .openapi({ description: '最近一次每日预测；尚未预测为 null' }),
  })
  .openapi('SupplierFunds');

function supplierFundsResource(row: SupplierFundsRow): z.infer<typeof supplierFundsSchema> {
  const runway =
    row.runway_at === null || row.runway_cost === null
      ? null
      : {
          days: row.runway_days ?? 0,
          cost: formatMoney(row.runway_cost),
          renewals: row.runway_renewals ?? 0,
          estimated: row.runway_estimated ?? 0,
          covered: row.balance === null ? null : money(row.balance).gte(row.runway_cost),
          forecast_at: formatDateTime(row.runway_at),
        };
  return {
    supplier_id: row.supplier_id,
    supplier_code: row.code,
    supplier_name: row.name,
    balance: moneyOrNull(row.balance),
    currency: row.currency,
    read_at: formatDateTime(row.read_at),
    awaiting_funds: row.awaiting_funds,
    shortage_open: row.open_shortage,
    runway,
  };
}

const fundsAlertSchema = z
  .object({
    id: z.number().int(),
    supplier_id: z.number().int(),
    kind: z.enum(['shortage', 'runway']).openapi({ description: 'shortage：余额不足以支付上游账单，工作等待充值；runway：余额不足以覆盖预测期内的续费' }),
    occasion: z.string(),
    balance: z.string().nullable(),
    needed: z.string().nullable(),
    message: z.string(),
    workflow_id: z.string().nullable(),
    created_at: dateTimeString.nullable(),
    resolved_at: dateTimeString.nullable(),
  })
  .openapi('SupplierFundsAlert');

function fundsAlertResource(row: FundsAlertRow): z.infer<typeof fundsAlertSchema> {
  return {
    id: row.id,
    supplier_id: row.supplier_id,
    kind: row.kind,
    occasion: row.occasion,
    balance: moneyOrNull(row.balance),
    needed: moneyOrNull(row.needed),
    message: row.message,
    workflow_id: row.workflow_id,
    created_at: formatDateTime(row.created_at),
    resolved_at: formatDateTime(row.resolved_at),
  };
}

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '上游余额与续费预测（按供应商）',
  description: '每个供应商：最近读取的上游余额、等待上游余额的开通与服务订单数、最近一次每日续费成本预测及余额是否足够。',
  access: view,
  request: { query: listQuery({}) },
  data: pageSchema(supplierFundsSchema),
});

const alerts = defineRoute({
  method: 'get',
  path: `${base}/alerts`,
  tags,
  summary: '上游余额提醒',
  description: '余额不足（每个供应商每次不足一条，充值后解除）与续费预测不足（每个供应商每天一条）的提醒，最新在前。',
  access: view,
  request: { query: listQuery({ supplier_id: idQuery('供应商编号必须是正整数').optional(), kind: z.enum(['shortage', 'runway'], { error: '提醒类型只能是 shortage 或 runway' }).optional() }) },
  data: pageSchema(fundsAlertSchema),
});

export const adminUpstreamFundsRoutes = createRouter()
  .openapi(alerts, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listFundsAlerts(c.var.deps, query);
    return ok(c, page(rows.map(fundsAlertResource), total, query));
  })
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listSupplierFunds(c.var.deps, query);
    return ok(c, page(rows.map(supplierFundsResource), total, query));
  });

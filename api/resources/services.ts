import { z } from '@hono/zod-openapi';
import { SERVICE_STATUSES } from '../../db/models/service.js';
import { formatMoney } from '../../lib/money.js';
import { formatDateTime } from '../../lib/time.js';
import { billingPeriodLabel, isBillingPeriod } from '../../domain/catalogue/billing-periods.js';
import { productTypeLabel } from '../../domain/catalogue/product-types.js';
import { PRODUCT_TYPES } from '../../db/models/catalogue.js';
import { CONSOLE_CAPABILITIES } from '../../domain/services/capabilities.js';
import { SERVICE_STATUS_LABELS } from '../../domain/services/service-labels.js';
import type { ServiceView } from '../../domain/services/service-view.js';
import { dateTimeString, moneyString } from '../schemas.js';

function periodLabel(period: string): string {
  return isBillingPeriod(period) ? billingPeriodLabel(period) : period;
}

const summaryShape = {
  id: z.number().int(),
  product_name: z.string(),
  product_type: z.enum(PRODUCT_TYPES),
  product_type_label: z.string(),
  status: z.enum(SERVICE_STATUSES),
  status_label: z.string(),
  hostname: z.string(),
  ip: z.string(),
  billing_period: z.string(),
  billing_period_label: z.string(),
  price: moneyString.openapi({ description: '每个计费周期的续费价格（锁定为购买时的价格）' }),
  currency: z.literal('CNY'),
  next_due_at: dateTimeString.nullable(),
  auto_renew: z.boolean(),
  created_at: dateTimeString.nullable(),
};

export const serviceSummarySchema = z.object(summaryShape).openapi('ServiceSummary');

export function serviceSummaryResource(s: ServiceView) {
  return {
    id: s.id,
    product_name: s.product_name,
    product_type: s.type,
    product_type_label: productTypeLabel(s.type),
    status: s.status,
    status_label: SERVICE_STATUS_LABELS[s.status],
    hostname: s.hostname,
    ip: s.ip,
    billing_period: s.billing_period,
    billing_period_label: periodLabel(s.billing_period),
    price: formatMoney(s.price),
    currency: 'CNY' as const,
    next_due_at: formatDateTime(s.next_due_at),
    auto_renew: s.auto_renew,
    created_at: formatDateTime(s.created_at),
  };
}

const detailShape = {
  ...summaryShape,
  product_id: z.number().int(),
  console_template: z.string().nullable().openapi({ description: '控制台模板（下单时的快照，否则按商品类型解析；other 类型来自插件的 console_schema）' }),
  provider_key: z.string().nullable().openapi({ description: '真实的上游 provider key（从不别名化）；无上游时为 null' }),
  plugin_key: z.string().nullable().openapi({ description: '真实的上游插件 key；无上游时为 null' }),
  capabilities: z.array(z.enum(CONSOLE_CAPABILITIES)).openapi({ description: '控制台能力：类型支持且绑定插件声明的能力；无上游绑定时为空（只读控制台）' }),
  upstream: z.object({ host_id: z.number().int().openapi({ description: '上游主机 id；无上游绑定时为 0（控制台只读）' }) }),
  actions: z.object({
    power: z.boolean().openapi({ description: '电源操作当前可用（有 power 能力且服务运行中）' }),
    module_status: z.boolean().openapi({ description: '插件自定义模块当前可用（绑定主机、插件声明 module_page 且服务运行中）' }),
  }),
  has_password: z.boolean().openapi({ description: '是否有可查看的密码；密码本身只能通过单独的查看操作获取（记录日志）' }),
  assigned_ips: z.array(z.string()),
  os: z.string(),
  username: z.string(),
  port: z.number().int().nullable(),
  upstream_status: z.string(),
  config: z.array(z.string()).openapi({ description: '购买时所选配置（名称：取值）' }),
  provisioning: z.object({ stage: z.string(), failure_reason: z.string().nullable() }),
  activated_at: dateTimeString.nullable(),
  suspended_at: dateTimeString.nullable(),
};

export const serviceDetailSchema = z.object(detailShape).openapi('ServiceDetail');

/** Every field of the spec's "Service instance" table, and never the password. */
export function serviceDetailResource(s: ServiceView) {
  return {
    ...serviceSummaryResource(s),
    product_id: s.product_id,
    console_template: s.consoleTemplate,
    provider_key: s.providerKey,
    plugin_key: s.pluginKey,
    capabilities: s.console.capabilities,
    upstream: { host_id: s.hostId },
    actions: { power: s.console.actions.power, module_status: s.console.actions.module_status },
    has_password: s.hasPassword,
    assigned_ips: s.assigned_ips,
    os: s.os,
    username: s.username,
    port: s.port,
    upstream_status: s.upstream_status,
    config: Object.values(s.config ?? {}).map((c) => String(c?.label ?? '')),
    provisioning: { stage: s.provisioning_stage, failure_reason: s.failure_reason },
    activated_at: formatDateTime(s.activated_at),
    suspended_at: formatDateTime(s.suspended_at),
  };
}

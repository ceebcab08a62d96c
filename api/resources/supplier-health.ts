import { z } from '@hono/zod-openapi';
import { formatDateTime } from '../../lib/time.js';
import { SUPPLIER_BREAKER_STATES } from '../../db/models/supplier.js';
import type { SupplierHealth } from '../../domain/suppliers/health.js';
import { dateTimeString } from '../schemas.js';

export const supplierHealthSchema = z
  .object({
    supplier_id: z.number().int(),
    code: z.string(),
    name: z.string(),
    state: z.enum(SUPPLIER_BREAKER_STATES).openapi({ description: '熔断器状态：closed 正常；open 不可用（熔断中，不分配新的开通）；half_open 已放行一次试探调用，等待结果' }),
    episode: z.number().int().openapi({ description: '熔断器累计打开次数（每次打开为一个不可用事件，提醒按此去重）' }),
    opened_at: dateTimeString.nullable().openapi({ description: '本次（或最近一次）打开时间' }),
    probe_claimed_at: dateTimeString.nullable().openapi({ description: '试探调用被领取的时间（half_open 时）' }),
    closed_at: dateTimeString.nullable().openapi({ description: '最近一次恢复（关闭）时间' }),
    retry_at: dateTimeString.nullable().openapi({ description: 'open 时：可放行试探调用的时间；half_open 时：试探未回报可重新领取的时间' }),
    window_minutes: z.number().int().openapi({ description: '统计窗口（分钟，设置 economics.health_window_minutes）' }),
    calls: z.number().int().openapi({ description: '窗口内调用数' }),
    failures: z.number().int().openapi({ description: '窗口内失败调用数（超时、连接失败、上游 5xx/维护等；业务拒绝不算）' }),
    failure_percent: z.number().nullable().openapi({ description: '窗口内失败占比（%），无调用时为 null' }),
    latency_avg_ms: z.number().int().nullable(),
    latency_p95_ms: z.number().int().nullable(),
    latency_max_ms: z.number().int().nullable(),
    last_failure_at: dateTimeString.nullable(),
    last_error_code: z.string().nullable().openapi({ description: '窗口内最近一次失败的错误码（如 timeout、network_error、upstream_unavailable）' }),
  })
  .openapi('SupplierHealth');

export function supplierHealthResource(h: SupplierHealth): z.infer<typeof supplierHealthSchema> {
  return {
    supplier_id: h.supplier_id,
    code: h.code,
    name: h.name,
    state: h.state,
    episode: h.episode,
    opened_at: formatDateTime(h.opened_at),
    probe_claimed_at: formatDateTime(h.probe_claimed_at),
    closed_at: formatDateTime(h.closed_at),
    retry_at: formatDateTime(h.retry_at),
    window_minutes: h.window_minutes,
    calls: h.calls,
    failures: h.failures,
    failure_percent: h.failure_percent,
    latency_avg_ms: h.latency_avg_ms,
    latency_p95_ms: h.latency_p95_ms,
    latency_max_ms: h.latency_max_ms,
    last_failure_at: formatDateTime(h.last_failure_at),
    last_error_code: h.last_error_code,
  };
}

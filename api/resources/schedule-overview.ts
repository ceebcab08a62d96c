import { z } from '@hono/zod-openapi';
import { formatDateTime } from '../../lib/time.js';
import type { OverviewItem } from '../../domain/tasks/overview.js';
import { dateTimeString } from '../schemas.js';
import { taskRunBrief, taskRunBriefSchema } from './task-run.js';

export const overviewItemSchema = z
  .object({
    kind: z.enum(['schedule', 'task']).openapi({ description: 'schedule：Temporal 计划（heartbeat、hourly、daily）；task：内置或插件任务' }),
    key: z.string(),
    title: z.string(),
    source: z.enum(['system', 'builtin', 'plugin']),
    plugin_slug: z.string().nullable(),
    category: z.string(),
    queue: z.string().openapi({ description: '声明的队列名；插件任务一律在配置的自动化队列（TEMPORAL_AUTOMATION_QUEUE）上运行' }),
    schedule_id: z.string().nullable(),
    declared_cadence: z.string().nullable().openapi({ description: '声明的周期，如 15m、60m 或 cron 表达式（Asia/Shanghai）；未声明（仅自动化配置触发）时为 null' }),
    effective_cadence: z.string().openapi({ description: '实际生效的周期，如 15m、60m 或 cron 表达式；仅按需触发的任务为 on_demand' }),
    state: z.enum(['active', 'paused', 'missing', 'unavailable', 'on_demand']).openapi({ description: '任务的状态取其驱动计划的状态；无计划驱动时为 on_demand' }),
    next_run_at: dateTimeString.nullable(),
    manual_triggerable: z.boolean(),
    last_run: taskRunBriefSchema.nullable(),
    temporal_ui_url: z.string().openapi({ description: '计划：Temporal UI 中的计划页；任务：按 TaskKey 过滤的工作流列表' }),
  })
  .openapi('ScheduleOverviewItem');

export function overviewItem(item: OverviewItem, uiBase: string) {
  const url =
    item.kind === 'schedule'
      ? `${uiBase}/schedules/${encodeURIComponent(item.scheduleId ?? item.key)}`
      : `${uiBase}/workflows?query=${encodeURIComponent(`TaskKey="${item.key}"`)}`;
  return {
    kind: item.kind,
    key: item.key,
    title: item.title,
    source: item.source,
    plugin_slug: item.pluginSlug,
    category: item.category,
    queue: item.queue,
    schedule_id: item.scheduleId,
    declared_cadence: item.declaredCadence,
    effective_cadence: item.effectiveCadence,
    state: item.state,
    next_run_at: formatDateTime(item.nextRunAt),
    manual_triggerable: item.manualTriggerable,
    last_run: item.lastRun ? taskRunBrief(item.lastRun) : null,
    temporal_ui_url: url,
  };
}

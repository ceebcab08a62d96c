import { z } from '@hono/zod-openapi';
import { notFound } from '../../../lib/errors.js';
import { formatDateTime } from '../../../lib/time.js';
import type { TaskRunRow } from '../../../db/models/task-run.js';
import {
  pauseSchedule,
  resumeSchedule,
  scheduleOverview,
  type ScheduleEntry,
  triggerSchedule,
} from '../../../domain/schedules/overview.js';
import { listTaskRuns } from '../../../domain/schedules/task-runs.js';
import { SCHEDULES, scheduleId } from '../../../workflows/schedules.js';
import type { AppConfig } from '../../../lib/config.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { dateTimeString, listQuery } from '../../schemas.js';

const tags = ['管理端：计划任务'];

function entries(config: AppConfig): ScheduleEntry[] {
  return SCHEDULES.map((s) => ({
    key: s.key,
    title: s.title,
    scheduleId: scheduleId(config.temporal.schedulePrefix, s.key),
    declaredCadence: s.declaredCadence,
  }));
}

function entryFor(config: AppConfig, key: string): ScheduleEntry {
  const entry = entries(config).find((e) => e.key === key);
  if (!entry) throw notFound('计划任务不存在');
  return entry;
}

const runSummarySchema = z.object({
  id: z.number().int(),
  status: z.enum(['running', 'succeeded', 'failed']),
  started_at: dateTimeString.nullable(),
  finished_at: dateTimeString.nullable(),
});

const taskRunSchema = runSummarySchema
  .extend({
    task_key: z.string(),
    trigger: z.enum(['schedule', 'manual']),
    workflow_id: z.string(),
    scheduled_at: dateTimeString.nullable(),
    summary: z.record(z.string(), z.unknown()).nullable(),
    error: z.string().nullable(),
  })
  .openapi('TaskRun');

function runSummary(run: TaskRunRow) {
  return {
    id: run.id,
    status: run.status,
    started_at: formatDateTime(run.started_at),
    finished_at: formatDateTime(run.finished_at),
  };
}

const overviewItemSchema = z
  .object({
    key: z.string(),
    title: z.string(),
    schedule_id: z.string(),
    declared_cadence: z.string().nullable().openapi({ description: '声明的周期，如 15m；未声明时为 null' }),
    effective_cadence: z.string().openapi({ description: '实际生效的周期，如 15m、60m 或 cron 表达式' }),
    state: z.enum(['active', 'paused', 'missing', 'unavailable']),
    next_run_at: dateTimeString.nullable(),
    last_run: runSummarySchema.nullable(),
    temporal_ui_url: z.string(),
  })
  .openapi('ScheduleOverviewItem');

const overview = defineRoute({
  method: 'get',
  path: '/api/v2/admin/schedules/overview',
  tags,
  summary: '计划任务总览',
  access: { surface: 'admin', permission: 'schedule.view' },
  data: z.object({ list: z.array(overviewItemSchema) }),
});

const runs = defineRoute({
  method: 'get',
  path: '/api/v2/admin/schedules/task-runs',
  tags,
  summary: '任务运行记录',
  access: { surface: 'admin', permission: 'schedule.view' },
  request: {
    query: listQuery({
      task_key: z.string().max(128).optional(),
      status: z.enum(['running', 'succeeded', 'failed']).optional(),
    }),
  },
  data: pageSchema(taskRunSchema),
});

const keyParam = z.object({ key: z.string().min(1).max(128).openapi({ param: { name: 'key', in: 'path' } }) });

const actionRoute = (action: 'trigger' | 'pause' | 'resume', summary: string) =>
  defineRoute({
    method: 'post',
    path: `/api/v2/admin/schedules/{key}/${action}`,
    tags,
    summary,
    access: { surface: 'admin', permission: 'schedule.manage' },
    request: { params: keyParam },
    data: z.null(),
    errors: [ErrorCode.DEPENDENCY_UNAVAILABLE],
  });

const trigger = actionRoute('trigger', '立即运行一次（与正在运行的实例重叠时跳过）');
const pause = actionRoute('pause', '暂停计划任务');
const resume = actionRoute('resume', '恢复计划任务');

export const adminScheduleRoutes = createRouter()
  .openapi(overview, async (c) => {
    const { deps } = c.var;
    const rows = await scheduleOverview(deps, deps.temporal, entries(deps.config));
    const uiBase = `${deps.config.temporal.uiUrl}/namespaces/${encodeURIComponent(deps.config.temporal.namespace)}`;
    const list = rows.map(({ entry, state, lastRun }) => ({
      key: entry.key,
      title: entry.title,
      schedule_id: entry.scheduleId,
      declared_cadence: entry.declaredCadence,
      effective_cadence: state.effectiveCadence ?? '',
      state: state.state,
      next_run_at: formatDateTime(state.nextRunAt),
      last_run: lastRun ? runSummary(lastRun) : null,
      temporal_ui_url: `${uiBase}/schedules/${encodeURIComponent(entry.scheduleId)}`,
    }));
    return ok(c, { list });
  })
  .openapi(runs, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listTaskRuns(c.var.deps, query);
    const list = rows.map((r) => ({
      ...runSummary(r),
      task_key: r.task_key,
      trigger: r.trigger,
      workflow_id: r.workflow_id,
      scheduled_at: formatDateTime(r.scheduled_at),
      summary: r.summary ?? null,
      error: r.error ?? null,
    }));
    return ok(c, page(list, total, query));
  })
  .openapi(trigger, async (c) => {
    await triggerSchedule(c.var.deps.temporal, entryFor(c.var.deps.config, c.req.valid('param').key).scheduleId);
    return ok(c, null, '已触发运行');
  })
  .openapi(pause, async (c) => {
    const entry = entryFor(c.var.deps.config, c.req.valid('param').key);
    await pauseSchedule(c.var.deps.temporal, entry.scheduleId, `由管理员 ${c.var.admin.username} 暂停`);
    return ok(c, null, '计划任务已暂停');
  })
  .openapi(resume, async (c) => {
    const entry = entryFor(c.var.deps.config, c.req.valid('param').key);
    await resumeSchedule(c.var.deps.temporal, entry.scheduleId, `由管理员 ${c.var.admin.username} 恢复`);
    return ok(c, null, '计划任务已恢复');
  });

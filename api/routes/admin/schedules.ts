import { z } from '@hono/zod-openapi';
import { ErrorCode, notFound, validationError } from '../../../lib/errors.js';
import type { AppConfig } from '../../../lib/config.js';
import type { DomainDeps } from '../../../domain/deps.js';
import { pauseSchedule, resumeSchedule, scheduleOverview, triggerSchedule } from '../../../domain/tasks/overview.js';
import { getTaskRun, listTaskRuns } from '../../../domain/tasks/task-runs.js';
import { findTask } from '../../../domain/tasks/catalogue.js';
import { startTask } from '../../../domain/tasks/start-task.js';
import { SCHEDULES, scheduleId } from '../../../workflows/schedules.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { overviewItem, overviewItemSchema } from '../../resources/schedule-overview.js';
import { taskRunDetail, taskRunDetailSchema, taskRunItem, taskRunItemSchema, taskRunStatus, taskRunTrigger } from '../../resources/task-run.js';
import { idParam, LOG_LIST_NOTE, logListQuery } from '../../schemas.js';
import { recordSystemLog } from '../../../domain/logs/system-logs.js';

const tags = ['管理端：计划任务'];

function scheduleIdFor(config: AppConfig, key: string): string | null {
  const declaration = SCHEDULES.find((s) => s.key === key);
  return declaration ? scheduleId(config.temporal.schedulePrefix, declaration.key) : null;
}

function uiBase(config: AppConfig): string {
  return `${config.temporal.uiUrl}/namespaces/${encodeURIComponent(config.temporal.namespace)}`;
}

const overview = defineRoute({
  method: 'get',
  path: '/api/v2/admin/schedules/overview',
  tags,
  summary: '计划任务总览（计划与任务）',
  description:
    '先列出三个计划（heartbeat 15 分钟心跳、hourly 每小时、daily 每日 DAILY_SCHEDULE_TIME，Asia/Shanghai），再列出内置任务和已启用插件的任务。declared_cadence 来自声明，effective_cadence 来自 Temporal 中实际生效的计划。',
  access: { surface: 'admin', permission: 'schedule.view' },
  data: z.object({ list: z.array(overviewItemSchema) }),
});

const runs = defineRoute({
  method: 'get',
  path: '/api/v2/admin/schedules/task-runs',
  tags,
  summary: '任务运行记录',
  description: `按开始时间倒序。${LOG_LIST_NOTE}`,
  access: { surface: 'admin', permission: 'schedule.view' },
  request: {
    query: logListQuery({
      task_key: z.string().max(128).optional(),
      status: taskRunStatus.optional(),
      trigger: taskRunTrigger.optional(),
      plugin_slug: z.string().max(64).optional(),
    }),
  },
  data: pageSchema(taskRunItemSchema),
});

const runDetail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/schedules/task-runs/{id}',
  tags,
  summary: '任务运行详情',
  access: { surface: 'admin', permission: 'schedule.view' },
  request: { params: idParam('id') },
  data: taskRunDetailSchema,
});

const keyParam = z.object({ key: z.string().min(1).max(128).openapi({ param: { name: 'key', in: 'path' } }) });

const trigger = defineRoute({
  method: 'post',
  path: '/api/v2/admin/schedules/{key}/trigger',
  tags,
  summary: '立即运行一次计划或任务',
  description:
    'key 为计划（heartbeat、hourly、daily）时通过 Temporal 计划触发，与正在运行的实例重叠时跳过；key 为任务时启动该任务的工作流 task:<key>：只允许 manualTriggerable 的任务（否则 42200），同一任务仍在运行时记录一条 skipped 运行并返回 40900。',
  access: { surface: 'admin', permission: 'schedule.manage' },
  request: { params: keyParam },
  data: z.object({
    key: z.string(),
    kind: z.enum(['schedule', 'task']),
    workflow_id: z.string().nullable().openapi({ description: '任务运行的工作流 id；计划触发时由 Temporal 生成，此处为 null' }),
  }),
  errors: [ErrorCode.CONFLICT, ErrorCode.VALIDATION, ErrorCode.DEPENDENCY_UNAVAILABLE],
});

const pauseRoute = (action: 'pause' | 'resume', summary: string) =>
  defineRoute({
    method: 'post',
    path: `/api/v2/admin/schedules/{key}/${action}`,
    tags,
    summary,
    description: '只适用于计划（heartbeat、hourly、daily）；任务随驱动它的计划暂停，不能单独暂停（42200）。',
    access: { surface: 'admin', permission: 'schedule.manage' },
    request: { params: keyParam },
    data: z.null(),
    errors: [ErrorCode.VALIDATION, ErrorCode.DEPENDENCY_UNAVAILABLE],
  });

const pause = pauseRoute('pause', '暂停计划');
const resume = pauseRoute('resume', '恢复计划');

/** Pause and resume act on schedules; a task key gets a clear refusal, anything else 40400. */
async function scheduleForPause(deps: DomainDeps, key: string): Promise<string> {
  const id = scheduleIdFor(deps.config, key);
  if (id) return id;
  if (await findTask(deps, key)) {
    throw validationError({ key: ['任务不能单独暂停或恢复，请操作驱动它的计划'] }, '任务不能单独暂停或恢复，请操作驱动它的计划（heartbeat、hourly 或 daily）');
  }
  throw notFound('计划任务不存在');
}

export const adminScheduleRoutes = createRouter()
  .openapi(overview, async (c) => {
    const { deps } = c.var;
    const items = await scheduleOverview(deps, deps.temporal);
    const base = uiBase(deps.config);
    return ok(c, { list: items.map((item) => overviewItem(item, base)) });
  })
  .openapi(runs, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listTaskRuns(c.var.deps, query);
    return ok(c, page(rows.map(taskRunItem), total, query));
  })
  .openapi(runDetail, async (c) => {
    const run = await getTaskRun(c.var.deps, c.req.valid('param').id);
    return ok(c, taskRunDetail(run, uiBase(c.var.deps.config)));
  })
  .openapi(trigger, async (c) => {
    const { deps } = c.var;
    const { key } = c.req.valid('param');
    const id = scheduleIdFor(deps.config, key);
    if (id) {
      await triggerSchedule(deps.temporal, id);
      return ok(c, { key, kind: 'schedule' as const, workflow_id: null }, '已触发运行');
    }
    const started = await startTask(deps, deps.temporal, { key, trigger: 'manual' });
    return ok(c, { key: started.key, kind: 'task' as const, workflow_id: started.workflowId }, '任务已开始运行');
  })
  .openapi(pause, async (c) => {
    const id = await scheduleForPause(c.var.deps, c.req.valid('param').key);
    await pauseSchedule(c.var.deps.temporal, id, `由管理员 ${c.var.admin.username} 暂停`);
    await recordSystemLog(c.var.deps, { category: 'schedule', event: 'schedule.paused', message: `管理员 ${c.var.admin.username} 暂停了计划 ${id}`, process: 'api', detail: { schedule_id: id, admin_id: c.var.admin.id } });
    return ok(c, null, '计划任务已暂停');
  })
  .openapi(resume, async (c) => {
    const id = await scheduleForPause(c.var.deps, c.req.valid('param').key);
    await resumeSchedule(c.var.deps.temporal, id, `由管理员 ${c.var.admin.username} 恢复`);
    await recordSystemLog(c.var.deps, { category: 'schedule', event: 'schedule.resumed', message: `管理员 ${c.var.admin.username} 恢复了计划 ${id}`, process: 'api', detail: { schedule_id: id, admin_id: c.var.admin.id } });
    return ok(c, null, '计划任务已恢复');
  });

import { z } from '@hono/zod-openapi';
import { formatDateTime } from '../../lib/time.js';
import { TASK_RUN_STATUSES, TASK_RUN_TRIGGERS, type TaskRunRow } from '../../db/models/task-run.js';
import { dateTimeString } from '../schemas.js';

/** Whitelist resources of task runs: the list carries no summary and only an error excerpt. */
export const taskRunStatus = z.enum(TASK_RUN_STATUSES);
export const taskRunTrigger = z
  .enum(TASK_RUN_TRIGGERS)
  .openapi({ description: 'schedule：Temporal 计划（及其每小时/每日运行启动的任务）；heartbeat：心跳槽位到期；manual：管理员手动；automation：系统代码触发' });

export const taskRunBriefSchema = z.object({
  id: z.number().int(),
  status: taskRunStatus,
  started_at: dateTimeString.nullable(),
  finished_at: dateTimeString.nullable(),
});

export function taskRunBrief(run: TaskRunRow) {
  return { id: run.id, status: run.status, started_at: formatDateTime(run.started_at), finished_at: formatDateTime(run.finished_at) };
}

const EXCERPT = 200;

export const taskRunItemSchema = taskRunBriefSchema
  .extend({
    task_key: z.string(),
    task_title: z.string(),
    plugin_slug: z.string().nullable(),
    trigger: taskRunTrigger,
    workflow_id: z.string(),
    slot_at: dateTimeString.nullable().openapi({ description: '计划运行所属的槽位（心跳 15 分钟、整点或当天）；手动运行为 null' }),
    scheduled_at: dateTimeString.nullable(),
    error_excerpt: z.string().nullable().openapi({ description: '错误信息摘要（前 200 字）；完整内容见详情' }),
  })
  .openapi('TaskRunItem');

export function taskRunItem(run: TaskRunRow) {
  return {
    ...taskRunBrief(run),
    task_key: run.task_key,
    task_title: run.task_title,
    plugin_slug: run.plugin_slug ?? null,
    trigger: run.trigger,
    workflow_id: run.workflow_id,
    slot_at: formatDateTime(run.slot_at),
    scheduled_at: formatDateTime(run.scheduled_at),
    error_excerpt: run.error ? run.error.slice(0, EXCERPT) : null,
  };
}

export const taskRunDetailSchema = taskRunItemSchema
  .extend({
    run_id: z.string(),
    plugin_id: z.number().int().nullable(),
    deadline_at: dateTimeString.nullable().openapi({ description: '锁定截止时间（开始时间 + lockTtlSeconds）；超时仍未结束的运行由心跳标记为失败' }),
    summary: z
      .union([z.record(z.string(), z.unknown()), z.array(z.unknown())])
      .nullable()
      .openapi({ description: '任务摘要（插件任务为插件返回的 summary，已脱敏；跳过的运行为 {reason, message}）' }),
    error: z.string().nullable(),
    temporal_ui_url: z.string(),
  })
  .openapi('TaskRunDetail');

export function taskRunDetail(run: TaskRunRow, uiBase: string) {
  return {
    ...taskRunItem(run),
    run_id: run.run_id,
    plugin_id: run.plugin_id ?? null,
    deadline_at: formatDateTime(run.deadline_at),
    summary: run.summary ?? null,
    error: run.error ?? null,
    temporal_ui_url: run.run_id.startsWith('skip:')
      ? `${uiBase}/workflows/${encodeURIComponent(run.workflow_id)}`
      : `${uiBase}/workflows/${encodeURIComponent(run.workflow_id)}/${encodeURIComponent(run.run_id)}`,
  };
}

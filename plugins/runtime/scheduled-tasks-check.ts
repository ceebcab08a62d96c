import type { FieldErrors } from '../../lib/errors.js';
import { parseCron } from '../../lib/cron.js';
import type { ScheduledTaskDeclaration } from './contract.js';

export const DEFAULT_TASK_QUEUE = 'automation';
const ALLOWED_MINUTES = new Set(['0', '15', '30', '45']);
/** Task keys go into workflow ids (`task:<key>`) and URLs: a plain, unpadded word. */
export const TASK_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** A five-field cron (Asia/Shanghai) whose minutes are only 0, 15, 30 and 45 (the heartbeat slots). */
export function cronProblem(expression: unknown): string | null {
  if (typeof expression !== 'string') return '必须是 cron 表达式文本';
  const parsed = parseCron(expression);
  if (!parsed.ok) return parsed.reason;
  if (![...parsed.schedule.minute].every((m) => ALLOWED_MINUTES.has(String(m)))) return 'cron 表达式的分钟字段只能使用 0、15、30、45';
  return null;
}

function checkTrigger(path: string, trigger: unknown, add: (path: string, reason: string) => void) {
  if (!isRecord(trigger)) return add(path, `${path} 必须是对象`);
  if (trigger.type === 'heartbeats') {
    const every = trigger.every;
    if (typeof every !== 'number' || !Number.isInteger(every) || every < 1) add(`${path}.every`, `${path}.every 必须是不小于 1 的整数`);
  } else if (trigger.type === 'cron') {
    const problem = cronProblem(trigger.expression);
    if (problem) add(`${path}.expression`, `${path}.expression ${problem}`);
  } else if (trigger.type === 'automation_config') {
    if (!nonEmptyString(trigger.key)) add(`${path}.key`, `${path}.key 不能为空`);
  } else {
    add(`${path}.type`, `${path}.type 只能是 heartbeats、cron 或 automation_config`);
  }
}

function checkTask(path: string, task: Record<string, unknown>, add: (path: string, reason: string) => void) {
  const { key, handle, timeout, lockTtlSeconds } = task;
  if (!nonEmptyString(key)) add(`${path}.key`, `${path}.key 不能为空`);
  else if (key !== key.trim()) add(`${path}.key`, `${path}.key 不能包含首尾空格`);
  else if (!TASK_KEY_PATTERN.test(key)) add(`${path}.key`, `${path}.key 只能使用字母、数字、点、下划线和短横线，最长 100 个字符`);
  if (!nonEmptyString(task.title)) add(`${path}.title`, `${path}.title 不能为空`);
  for (const name of ['description', 'category'] as const) {
    if (task[name] !== undefined && typeof task[name] !== 'string') add(`${path}.${name}`, `${path}.${name} 必须是文本`);
  }
  if (!nonEmptyString(handle)) add(`${path}.handle`, `${path}.handle 不能为空`);
  if (task.queue !== undefined && !nonEmptyString(task.queue)) add(`${path}.queue`, `${path}.queue 不能为空`);
  if (task.manualTriggerable !== undefined && typeof task.manualTriggerable !== 'boolean') {
    add(`${path}.manualTriggerable`, `${path}.manualTriggerable 必须是布尔值`);
  }
  if (!Array.isArray(task.triggers) || task.triggers.length === 0) add(`${path}.triggers`, `${path}.triggers 至少需要一个触发器`);
  else task.triggers.forEach((t, i) => checkTrigger(`${path}.triggers[${i}]`, t, add));
  const timeoutOk = typeof timeout === 'number' && Number.isFinite(timeout) && timeout > 0;
  if (!timeoutOk) add(`${path}.timeout`, `${path}.timeout 必须是大于 0 的秒数`);
  if (typeof lockTtlSeconds !== 'number' || !Number.isFinite(lockTtlSeconds)) {
    add(`${path}.lockTtlSeconds`, `${path}.lockTtlSeconds 必须是秒数`);
  } else if (timeoutOk && lockTtlSeconds < timeout + 60) {
    add(`${path}.lockTtlSeconds`, `${path}.lockTtlSeconds 至少为 timeout + 60（${timeout + 60} 秒）`);
  }
}

/**
 * `info.extra.scheduled_tasks` against the task contract (spec: Events 4, Limits). `takenKeys`
 * maps task keys already in use (built-in tasks, enabled plugins, schedule keys) to a Chinese
 * description of their owner.
 */
export function checkScheduledTasks(tasks: unknown, takenKeys: ReadonlyMap<string, string> = new Map()): FieldErrors {
  const errors: FieldErrors = {};
  const add = (path: string, reason: string) => (errors[path] ??= []).push(reason);
  if (tasks === undefined) return errors;
  if (!Array.isArray(tasks)) {
    add('info.extra.scheduled_tasks', 'info.extra.scheduled_tasks 必须是数组');
    return errors;
  }
  const seen = new Set<string>();
  tasks.forEach((task, i) => {
    const path = `info.extra.scheduled_tasks[${i}]`;
    if (!isRecord(task)) return add(path, `${path} 必须是对象`);
    checkTask(path, task, add);
    if (typeof task.key === 'string') {
      if (seen.has(task.key)) add(`${path}.key`, `${path}.key（${task.key}）与其他任务重复`);
      const owner = takenKeys.get(task.key);
      if (owner !== undefined) add(`${path}.key`, `任务 key（${task.key}）已被${owner}使用`);
      seen.add(task.key);
    }
  });
  return errors;
}

/** Fills the defaults of valid declarations: queue `automation`, not manually triggerable. */
export function normaliseScheduledTasks(tasks: ScheduledTaskDeclaration[] | undefined): ScheduledTaskDeclaration[] | undefined {
  return tasks?.map((t) => ({
    ...t,
    description: t.description ?? '',
    category: t.category ?? '',
    queue: t.queue ?? DEFAULT_TASK_QUEUE,
    manualTriggerable: t.manualTriggerable ?? false,
  }));
}

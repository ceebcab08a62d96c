import type { FieldErrors } from '../../lib/errors.js';
import { resolveHookListener } from './hook-listener.js';

/** Hook names of the spec (Events 3); plugins may also use `plugins.<slug>.<action>`. */
export const SCHEDULE_HOOK_NAMES = [
  'before_cron',
  'after_cron',
  'task.before',
  'task.after',
  'task.failed',
  'tick.every_minute',
  'tick.every_five_minutes',
  'tick.hourly',
  'tick.daily',
  'before_daily_cron',
  'after_daily_cron',
  'after_five_minute_cron',
  'after_half_hour_minute_cron',
] as const;

const CUSTOM_HOOK = /^plugins\.[a-z0-9][a-z0-9_-]*\.[A-Za-z0-9_.-]+$/;

export function isCustomHookName(name: string): boolean {
  return CUSTOM_HOOK.test(name);
}

export function isKnownHookName(name: string): boolean {
  return (SCHEDULE_HOOK_NAMES as readonly string[]).includes(name) || CUSTOM_HOOK.test(name);
}

/** `info.extra.schedule_hooks`: known hook names, each listener an existing export of the entry module. */
export function checkScheduleHooks(hooks: unknown, mod: Record<string, unknown>): FieldErrors {
  const errors: FieldErrors = {};
  const add = (path: string, reason: string) => (errors[path] ??= []).push(reason);
  if (hooks === undefined) return errors;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) {
    add('info.extra.schedule_hooks', 'info.extra.schedule_hooks 必须是对象');
    return errors;
  }
  for (const [name, listeners] of Object.entries(hooks)) {
    const path = `info.extra.schedule_hooks.${name}`;
    if (!isKnownHookName(name)) add(path, `钩子 ${name} 不存在，只能使用规范列出的钩子或 plugins.<slug>.<action>`);
    if (!Array.isArray(listeners) || listeners.length === 0) {
      add(path, `钩子 ${name} 至少需要一个监听器`);
      continue;
    }
    listeners.forEach((listener, i) => {
      const resolved = resolveHookListener(mod, listener);
      if (!resolved.ok) add(`${path}[${i}]`, `钩子 ${name} 的第 ${i + 1} 个监听器无效：${resolved.reason}`);
    });
  }
  return errors;
}

import { REPORT_TASK_KEY } from './task.js';

export type HookContext = Record<string, unknown>;
export type HookEntry = Record<string, unknown>;

const DAY_MS = 86_400_000;
const SECRET_PAIRS = /\b(password|passwd|token|secret|api_key|apikey|jwt)\b(\s*[:=]\s*)\S+/gi;
const MAX_SUMMARY = 200;

/** The previous calendar day in Asia/Shanghai (the day the report covers). */
function previousDay(now: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(now.getTime() - DAY_MS));
}

function readNow(context: HookContext): Date {
  const value = context['now'] ?? context['fired_at'];
  const date = typeof value === 'string' || typeof value === 'number' ? new Date(value) : new Date();
  return Number.isNaN(date.getTime()) ? new Date() : date;
}

function exceptionSummary(context: HookContext): string {
  const raw = context['exception'] ?? context['error'];
  const record = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : null;
  const text = typeof raw === 'string' ? raw : typeof record?.['message'] === 'string' ? record['message'] : '未知错误';
  const redacted = text.replace(SECRET_PAIRS, '$1$2***').replace(/\s+/g, ' ').trim();
  return redacted.length > MAX_SUMMARY ? `${redacted.slice(0, MAX_SUMMARY)}…` : redacted;
}

/** Schedule-hook listener of the daily report addon; pure, returns arrays as the hook contract asks. */
export class DailyReportListener {
  /** `tick.daily`: the report for the previous day is due (idempotent per date). */
  handle(hook: string, context: HookContext): HookEntry[] {
    if (hook !== 'tick.daily') return [];
    const date = previousDay(readNow(context));
    return [
      {
        type: 'report.due',
        task_key: REPORT_TASK_KEY,
        date,
        idempotency_key: `daily_report:${date}`,
        message: `${date} 的每日运营报表已到发送时间`,
      },
    ];
  }

  /** `task.failed`: a warning entry when the report task failed; other tasks are not ours. */
  onTaskFailed(hook: string, context: HookContext): HookEntry[] {
    if (hook !== 'task.failed' || context['task_key'] !== REPORT_TASK_KEY) return [];
    return [
      {
        type: 'report.failed',
        level: 'warning',
        task_key: REPORT_TASK_KEY,
        message: `每日运营报表发送失败：${exceptionSummary(context)}`,
      },
    ];
  }
}

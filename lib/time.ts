import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone.js';
import utc from 'dayjs/plugin/utc.js';

dayjs.extend(utc);
dayjs.extend(timezone);

export const TIME_ZONE = 'Asia/Shanghai';
export const DATE_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';

// One formatter for the process: building a time-zone formatter per call (dayjs `.tz()`) costs
// about 80x more. sv-SE writes `YYYY-MM-DD HH:mm:ss`.
const wireFormat = new Intl.DateTimeFormat('sv-SE', {
  timeZone: TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

// Lists show the same rows again and again: remember recent results (per whole second, the
// format's resolution), bounded. Even one Intl format call costs more than the lookup.
const formatted = new Map<number, string>();
const FORMATTED_MAX = 10_000;

/** The wire form of a date-time: `YYYY-MM-DD HH:mm:ss` in Asia/Shanghai; null stays null. */
export function formatDateTime(value: Date | string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const ms = value instanceof Date ? value.getTime() : new Date(value).getTime();
  if (Number.isNaN(ms)) return null;
  const second = Math.floor(ms / 1000);
  let text = formatted.get(second);
  if (text === undefined) {
    text = wireFormat.format(second * 1000);
    if (formatted.size >= FORMATTED_MAX) formatted.clear();
    formatted.set(second, text);
  }
  return text;
}

/** Parses `YYYY-MM-DD HH:mm:ss` as Asia/Shanghai wall time. */
export function parseDateTime(value: string): Date | null {
  const d = dayjs.tz(value, DATE_TIME_FORMAT, TIME_ZONE);
  return d.isValid() && d.format(DATE_TIME_FORMAT) === value ? d.toDate() : null;
}

export function unixSeconds(date: Date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}

/** Asia/Shanghai's offset from UTC: +08:00 all year (no daylight saving since 1991). */
const SHANGHAI_OFFSET_MS = 8 * 3_600_000;

/**
 * `months` calendar months later in Asia/Shanghai wall time (Jan 31 + 1 month = Feb 28/29), as
 * dayjs `.tz(TIME_ZONE).add(months, 'month')` answers (test/lib/time.test.ts compares them), with
 * plain UTC arithmetic on the fixed offset: dayjs builds a time-zone formatter per call, which
 * was the largest single cost of activating a service (issue #30).
 */
export function addMonths(date: Date, months: number): Date {
  const wall = new Date(date.getTime() + SHANGHAI_OFFSET_MS);
  const year = wall.getUTCFullYear();
  const month = wall.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const moved = Date.UTC(year, month, Math.min(wall.getUTCDate(), lastDay), wall.getUTCHours(), wall.getUTCMinutes(), wall.getUTCSeconds(), wall.getUTCMilliseconds());
  return new Date(moved - SHANGHAI_OFFSET_MS);
}

/**
 * Five-field cron expressions (minute hour day-of-month month day-of-week), matched against a
 * moment in a time zone. Only what task triggers need: no cron library is installed, and the
 * scheduler never asks "when next" beyond stepping through heartbeat slots, so a matcher is
 * enough. Fields take `*`, `?` (day fields), numbers, `a-b`, `x/step`, lists, and the English
 * month and weekday names; weekday 7 is Sunday. As in Vixie cron, when both day fields are
 * restricted a day matches if either does.
 */

export type CronSchedule = {
  minute: ReadonlySet<number>;
  hour: ReadonlySet<number>;
  dayOfMonth: ReadonlySet<number>;
  month: ReadonlySet<number>;
  dayOfWeek: ReadonlySet<number>;
  dayOfMonthAny: boolean;
  dayOfWeekAny: boolean;
};

type FieldSpec = { label: string; min: number; max: number; names?: readonly string[]; question?: boolean };

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: readonly FieldSpec[] = [
  { label: '分钟', min: 0, max: 59 },
  { label: '小时', min: 0, max: 23 },
  { label: '日期', min: 1, max: 31, question: true },
  { label: '月份', min: 1, max: 12, names: MONTHS },
  { label: '星期', min: 0, max: 7, names: WEEKDAYS, question: true },
];

export type CronParse = { ok: true; schedule: CronSchedule } | { ok: false; reason: string };

function parseValue(text: string, spec: FieldSpec): number | null {
  if (/^\d+$/.test(text)) return Number(text);
  const index = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index < 0) return null;
  return spec.names === MONTHS ? index + 1 : index;
}

/** One field into its set of values, or a Chinese reason. */
function parseField(text: string, spec: FieldSpec): Set<number> | string {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const [range = '', stepText, extra] = item.split('/');
    if (extra !== undefined || range === '') return `${spec.label}字段格式不正确：${item}`;
    const step = stepText === undefined ? 1 : /^\d+$/.test(stepText) ? Number(stepText) : 0;
    if (step < 1) return `${spec.label}字段的步长不正确：${item}`;
    let from: number | null;
    let to: number | null;
    if (range === '*' || (range === '?' && spec.question)) {
      from = spec.min;
      to = spec.max;
    } else {
      const [a = '', b, more] = range.split('-');
      if (more !== undefined) return `${spec.label}字段格式不正确：${item}`;
      from = parseValue(a, spec);
      to = b === undefined ? (stepText === undefined ? from : spec.max) : parseValue(b, spec);
    }
    if (from === null || to === null) return `${spec.label}字段包含无效的值：${item}`;
    if (from < spec.min || to > spec.max || from > to) return `${spec.label}字段超出范围 ${spec.min}-${spec.max}：${item}`;
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}

export function parseCron(expression: string): CronParse {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return { ok: false, reason: 'cron 表达式必须有 5 个字段' };
  const sets: Set<number>[] = [];
  for (const [i, spec] of FIELDS.entries()) {
    const parsed = parseField(fields[i] as string, spec);
    if (typeof parsed === 'string') return { ok: false, reason: parsed };
    sets.push(parsed);
  }
  const [minute, hour, dayOfMonth, month, dayOfWeek] = sets as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  if (dayOfWeek.delete(7)) dayOfWeek.add(0);
  const unrestricted = (f: string) => f.startsWith('*') || f.startsWith('?');
  return {
    ok: true,
    schedule: {
      minute,
      hour,
      dayOfMonth,
      month,
      dayOfWeek,
      dayOfMonthAny: unrestricted(fields[2] as string),
      dayOfWeekAny: unrestricted(fields[4] as string),
    },
  };
}

const partsFormats = new Map<string, Intl.DateTimeFormat>();

function wallClock(at: Date, timeZone: string) {
  let format = partsFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      weekday: 'short',
    });
    partsFormats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  return {
    minute: Number(parts.minute),
    hour: Number(parts.hour),
    day: Number(parts.day),
    month: Number(parts.month),
    weekday: WEEKDAYS.indexOf(String(parts.weekday).toUpperCase()),
  };
}

/** Whether the minute containing `at`, read as wall-clock time in `timeZone`, matches. */
export function cronMatches(schedule: CronSchedule, at: Date, timeZone: string): boolean {
  const t = wallClock(at, timeZone);
  if (!schedule.minute.has(t.minute) || !schedule.hour.has(t.hour) || !schedule.month.has(t.month)) return false;
  const domHit = schedule.dayOfMonth.has(t.day);
  const dowHit = schedule.dayOfWeek.has(t.weekday);
  if (schedule.dayOfMonthAny || schedule.dayOfWeekAny) return domHit && dowHit;
  return domHit || dowHit;
}

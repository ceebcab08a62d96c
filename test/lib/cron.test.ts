import { describe, expect, it } from 'vitest';
import { cronMatches, parseCron } from '../../lib/cron.js';

function matches(expression: string, iso: string): boolean {
  const parsed = parseCron(expression);
  if (!parsed.ok) throw new Error(parsed.reason);
  return cronMatches(parsed.schedule, new Date(iso), 'Asia/Shanghai');
}

describe('cron expressions', () => {
  it('are read as wall-clock time in the given zone', () => {
    expect(matches('0 9 * * *', '2026-01-05T01:00:00Z')).toBe(true); // 09:00 in Shanghai
    expect(matches('0 9 * * *', '2026-01-05T09:00:00Z')).toBe(false);
    expect(matches('15,45 3 * * *', '2026-01-04T19:45:00Z')).toBe(true);
  });

  it('take steps, ranges, lists and names', () => {
    expect(matches('*/15 * * * *', '2026-01-05T01:30:00Z')).toBe(true);
    expect(matches('0 8-10/2 * * *', '2026-01-05T02:00:00Z')).toBe(true); // 10:00
    expect(matches('0 8-10/2 * * *', '2026-01-05T01:00:00Z')).toBe(false); // 09:00
    expect(matches('0 9 * JAN MON', '2026-01-05T01:00:00Z')).toBe(true); // Monday 5 January
    expect(matches('0 9 * * 7', '2026-01-04T01:00:00Z')).toBe(true); // Sunday as 7
    expect(matches('0 9 ? * SUN', '2026-01-04T01:00:00Z')).toBe(true);
  });

  it('match either day field when both are restricted, as cron does', () => {
    expect(matches('0 9 1 * MON', '2026-01-05T01:00:00Z')).toBe(true); // a Monday, not the 1st
    expect(matches('0 9 1 * MON', '2026-01-01T01:00:00Z')).toBe(true); // the 1st, a Thursday
    expect(matches('0 9 1 * MON', '2026-01-06T01:00:00Z')).toBe(false);
    expect(matches('0 9 1 * *', '2026-01-05T01:00:00Z')).toBe(false);
  });

  it.each([
    ['0 9 * *', 'cron 表达式必须有 5 个字段'],
    ['0 25 * * *', '小时字段超出范围 0-23：25'],
    ['0 9 * FOO *', '月份字段包含无效的值：FOO'],
    ['0 9 * * 1/0', '星期字段的步长不正确：1/0'],
    ['0 9 5-1 * *', '日期字段超出范围 1-31：5-1'],
    ['? 9 * * *', '分钟字段包含无效的值：?'],
  ])('refuse %s with a Chinese reason', (expression, reason) => {
    expect(parseCron(expression)).toEqual({ ok: false, reason });
  });
});

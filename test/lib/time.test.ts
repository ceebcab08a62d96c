import { describe, expect, it } from 'vitest';
import dayjs from 'dayjs';
import { addMonths, formatDateTime, parseDateTime, TIME_ZONE } from '../../lib/time.js';

describe('time', () => {
  it('formats instants as Asia/Shanghai wall time', () => {
    expect(formatDateTime(new Date('2026-01-01T00:00:00Z'))).toBe('2026-01-01 08:00:00');
    expect(formatDateTime(new Date('2026-06-30T16:30:05Z'))).toBe('2026-07-01 00:30:05');
    expect(formatDateTime(null)).toBeNull();
  });

  it('parses the wire format back to the same instant and refuses other shapes', () => {
    expect(parseDateTime('2026-01-01 08:00:00')?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(parseDateTime('2026-13-01 08:00:00')).toBeNull();
    expect(parseDateTime('2026-01-01T08:00:00')).toBeNull();
  });
});

describe('formatDateTime across many instants', () => {
  it('equals UTC+8 wall time (Shanghai has had no DST since 1991)', () => {
    for (let i = 0; i < 500; i++) {
      const ms = Date.UTC(1995, 0, 1) + Math.floor(Math.random() * 40 * 365 * 86_400_000);
      const expected = new Date(ms + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
      expect(formatDateTime(new Date(ms))).toBe(expected);
    }
  });
});

describe('addMonths', () => {
  it('answers what dayjs answers in Asia/Shanghai, month ends clamped, across many instants and month counts', () => {
    const dayjsAdd = (date: Date, months: number) => dayjs(date).tz(TIME_ZONE).add(months, 'month').toDate().toISOString();
    // The month ends around midnight Shanghai time, where UTC and wall dates differ.
    const edges = ['2026-01-30T16:00:00Z', '2026-01-31T15:59:59Z', '2024-01-31T16:30:00Z', '2025-12-31T23:59:59Z', '2026-03-31T00:00:00Z'];
    for (const iso of edges) {
      for (const months of [1, 2, 3, 6, 12, 24, 36, -1]) expect(addMonths(new Date(iso), months).toISOString(), `${iso} + ${months}`).toBe(dayjsAdd(new Date(iso), months));
    }
    for (let i = 0; i < 500; i++) {
      const date = new Date(Date.UTC(1995, 0, 1) + Math.floor(Math.random() * 40 * 365 * 86_400_000));
      const months = [1, 3, 6, 12, 24, 36][i % 6] as number;
      expect(addMonths(date, months).toISOString(), `${date.toISOString()} + ${months}`).toBe(dayjsAdd(date, months));
    }
    expect(addMonths(new Date('2026-01-31T04:00:00Z'), 1).toISOString()).toBe('2026-02-28T04:00:00.000Z');
  });
});

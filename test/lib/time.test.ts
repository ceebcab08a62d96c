import { describe, expect, it } from 'vitest';
import { formatDateTime, parseDateTime } from '../../lib/time.js';

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

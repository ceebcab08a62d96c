import { describe, expect, it } from 'vitest';
import { formatMoney, money, parseMoney, sumMoney } from '../../lib/money.js';

describe('money', () => {
  it('adds awkward decimals exactly', () => {
    expect(formatMoney(money('0.1').plus('0.2'))).toBe('0.30');
    expect(formatMoney(sumMoney(Array.from({ length: 1000 }, () => '0.01')))).toBe('10.00');
  });

  it('formats with two digits, rounding half up', () => {
    expect(formatMoney('1')).toBe('1.00');
    expect(formatMoney('2.345')).toBe('2.35');
    expect(formatMoney('-2.345')).toBe('-2.35');
  });

  it('parses wire input with at most two fraction digits', () => {
    expect(parseMoney('12.30')?.toFixed(2)).toBe('12.30');
    expect(parseMoney(99.99)?.toFixed(2)).toBe('99.99');
    expect(parseMoney('-5')?.toFixed(2)).toBe('-5.00');
    expect(parseMoney('1.001')).toBeNull();
    expect(parseMoney('1e3')).toBeNull();
    expect(parseMoney(Number.NaN)).toBeNull();
    expect(parseMoney({})).toBeNull();
  });
});

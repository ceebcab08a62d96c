import { describe, expect, it } from 'vitest';
import { formatMoney, money, parseMoney, parseUpstreamAmount, sumMoney } from '../../lib/money.js';

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

  it('reads an upstream amount one way: trimmed, strings or numbers, no sign, no separators, zero allowed', () => {
    expect(parseUpstreamAmount('12.30')).toBe('12.30');
    expect(parseUpstreamAmount('  12.3 ')).toBe('12.30');
    expect(parseUpstreamAmount('7')).toBe('7.00');
    expect(parseUpstreamAmount(12.5)).toBe('12.50');
    expect(parseUpstreamAmount(0)).toBe('0.00');
    expect(parseUpstreamAmount('0.00')).toBe('0.00');
    // More than two digits: half-up, as the NUMERIC(…,2) column would store it.
    expect(parseUpstreamAmount('2.345')).toBe('2.35');
    expect(parseUpstreamAmount('899.0000')).toBe('899.00');
    expect(parseUpstreamAmount('999999999999.99')).toBe('999999999999.99');
    for (const refused of ['-1', '-0.01', '+5', '1,000.00', '1 000', '1e3', '', '   ', '.5', '5.', '0x10', 'abc', '1234567890123', '１２']) {
      expect(parseUpstreamAmount(refused), refused).toBeNull();
    }
    for (const refused of [-1, Number.NaN, Number.POSITIVE_INFINITY, 1e21, null, undefined, true, {}, ['1.00']]) {
      expect(parseUpstreamAmount(refused), String(refused)).toBeNull();
    }
  });
});

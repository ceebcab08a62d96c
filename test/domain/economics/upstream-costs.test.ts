import { describe, expect, it } from 'vitest';
import { firstAmount } from '../../../domain/economics/upstream-costs.js';
import { parseUpstreamAmount } from '../../../lib/money.js';

describe('firstAmount', () => {
  it('reads each answer with the one upstream amount rule (lib/money.ts) and takes the first that is an amount', () => {
    // Before the one rule, this reader refused JSON numbers and more than two fraction digits.
    expect(firstAmount(12.5)).toBe('12.50');
    expect(firstAmount(' 10.005 ')).toBe('10.01');
    expect(firstAmount(undefined, '-1.00', 'n/a', '0', '3.00')).toBe('0.00');
    expect(firstAmount(null, '1,000.00')).toBeNull();
    for (const value of ['12.30', ' 7 ', 8, '-1', '1e3', '2.345', '', 0]) expect(firstAmount(value)).toBe(parseUpstreamAmount(value));
  });
});

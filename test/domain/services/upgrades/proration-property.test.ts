import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { billingPeriodMonths } from '../../../../domain/catalogue/billing-periods.js';
import { downgradeCredit, invoicedAmount, prorate, upgradeRefund } from '../../../../domain/services/upgrades/proration.js';
import { money } from '../../../../lib/money.js';

const PERIODS = ['monthly', 'quarterly', 'semiannually', 'annually', 'biennially', 'triennially'] as const;
const DAY = 86_400_000;

/** A price in cents as a two-digit string, 0.00 to 99 999.99. */
const price = fc.integer({ min: 0, max: 9_999_999 }).map((cents) => money(cents).dividedBy(100).toFixed(2));

const change = fc.record({
  period: fc.constantFrom(...PERIODS),
  // Due dates between 2024 and 2031, at any time of day.
  dueMs: fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2031, 0, 1) }),
  // "Now": anywhere from before the period began to after the due date.
  nowOffsetDays: fc.integer({ min: -1200, max: 5 }),
  nowJitterMs: fc.integer({ min: 0, max: DAY - 1 }),
  oldPrice: price,
  newPrice: price,
});

describe('upgrade proration', () => {
  it('charge minus credit is the difference of the two prices over the days left, to the cent, and nothing else', () => {
    fc.assert(
      fc.property(change, (c) => {
        const months = billingPeriodMonths(c.period) ?? 1;
        const dueAt = new Date(c.dueMs);
        const now = new Date(c.dueMs + c.nowOffsetDays * DAY + c.nowJitterMs);
        const p = prorate({ oldPrice: c.oldPrice, newPrice: c.newPrice, dueAt, months, now });
        // The real calendar: a period of 1 to 36 months has 28 to 1096 days.
        expect(p.days_in_period).toBeGreaterThanOrEqual(28 * months);
        expect(p.days_in_period).toBeLessThanOrEqual(31 * months + 1);
        expect(p.days_left).toBeGreaterThanOrEqual(0);
        expect(p.days_left).toBeLessThanOrEqual(p.days_in_period);
        const exact = new Decimal(c.newPrice).minus(c.oldPrice).times(p.days_left).dividedBy(p.days_in_period);
        // charge − credit is the net difference exactly (both are cents) …
        expect(money(p.charge).minus(p.credit).toFixed(2)).toBe(p.difference);
        // … and the net difference is the exact prorated difference rounded once, to the cent.
        expect(money(p.difference).minus(exact).abs().lte('0.005')).toBe(true);
        // The credit comes from the locked price of the whole period: never more than it.
        expect(money(p.credit).lte(c.oldPrice)).toBe(true);
        expect(money(p.credit).gte(0)).toBe(true);
        // The invoice asks the positive part, the balance gets the negative part: never both.
        const invoiced = money(invoicedAmount(p));
        const credited = money(downgradeCredit(p));
        expect(invoiced.minus(credited).toFixed(2)).toBe(p.difference);
        expect(invoiced.isZero() || credited.isZero()).toBe(true);
        // No "-0.00".
        expect(p.difference.startsWith('-0.00')).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('a refund of an upgrade never exceeds what it charged', () => {
    fc.assert(
      fc.property(change, fc.integer({ min: 0, max: 10_000_000 }), fc.option(fc.integer({ min: 0, max: 20_000_000 })), (c, refundedCents, requestedCents) => {
        const months = billingPeriodMonths(c.period) ?? 1;
        const p = prorate({ oldPrice: c.oldPrice, newPrice: c.newPrice, dueAt: new Date(c.dueMs), months, now: new Date(c.dueMs + c.nowOffsetDays * DAY) });
        const charged = invoicedAmount(p);
        const already = Decimal.min(charged, money(refundedCents).dividedBy(100));
        const requested = requestedCents === null ? null : money(requestedCents).dividedBy(100);
        const refund = money(upgradeRefund(charged, already, requested));
        expect(refund.gte(0)).toBe(true);
        expect(refund.plus(already).lte(charged)).toBe(true);
        if (requested === null) expect(refund.plus(already).toFixed(2)).toBe(money(charged).toFixed(2));
      }),
      { numRuns: 1000 },
    );
  });

  it('counts real Shanghai calendar days and rounds half up once', () => {
    // Due 2025-03-01 10:00 Shanghai, monthly: the period is 2025-02-01 to 2025-03-01, 28 days.
    const dueAt = new Date('2025-03-01T02:00:00Z');
    // 2025-02-21 23:30 Shanghai (15:30 UTC): 8 days left.
    const p = prorate({ oldPrice: '70.00', newPrice: '100.00', dueAt, months: 1, now: new Date('2025-02-21T15:30:00Z') });
    expect(p).toMatchObject({ period_start: '2025-02-01', due_date: '2025-03-01', today: '2025-02-21', days_in_period: 28, days_left: 8 });
    // 30 × 8 / 28 = 8.571428… → 8.57; credit 70 × 8 / 28 = 20.00; charge 28.57.
    expect(p).toMatchObject({ difference: '8.57', credit: '20.00', charge: '28.57' });
    // 16:30 UTC is already 2025-02-22 in Shanghai: 7 days left.
    expect(prorate({ oldPrice: '70.00', newPrice: '100.00', dueAt, months: 1, now: new Date('2025-02-21T16:30:00Z') }).days_left).toBe(7);
    // A downgrade mirrors it: −8.57.
    expect(prorate({ oldPrice: '100.00', newPrice: '70.00', dueAt, months: 1, now: new Date('2025-02-21T15:30:00Z') }).difference).toBe('-8.57');
    // The due day itself: nothing left.
    expect(prorate({ oldPrice: '70.00', newPrice: '100.00', dueAt, months: 1, now: new Date('2025-03-01T01:00:00Z') }).days_left).toBe(0);
    // A tie rounds away from zero: 0.07 × 14 / 28 = 0.035 → 0.04, and a downgrade −0.04.
    const halfway = new Date('2025-02-15T02:00:00Z');
    expect(prorate({ oldPrice: '0.00', newPrice: '0.07', dueAt, months: 1, now: halfway })).toMatchObject({ days_left: 14, difference: '0.04' });
    expect(prorate({ oldPrice: '0.07', newPrice: '0.00', dueAt, months: 1, now: halfway })).toMatchObject({ difference: '-0.04', credit: '0.04', charge: '0.00' });
  });
});

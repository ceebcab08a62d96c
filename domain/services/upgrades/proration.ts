import { Decimal } from 'decimal.js';
import dayjs from 'dayjs';
import { formatMoney, money } from '../../../lib/money.js';
import { formatDateTime, TIME_ZONE } from '../../../lib/time.js';

/**
 * Proration of a configuration change (docs/fulfilment.md "Upgrades and downgrades"), exact in decimal.js on
 * the real calendar of Asia/Shanghai:
 * - the current period is the service's own period length (its billing period's months) ending
 *   at its due date: `[due − months, due)`; `days_in_period` counts its calendar days;
 * - `days_left` counts the calendar days from today (Shanghai) to the due date's day (today is
 *   used, the due day is not): 0 on the due day, `days_in_period` on the first day;
 * - `credit` is the unused part of the service's LOCKED price of the current period (never of an
 *   earlier prorated charge): old × days_left / days_in_period; `charge` is the new price's part
 *   of the same days;
 * - the one rounding rule: the net difference (new − old) × days_left / days_in_period is
 *   computed exactly (in cents, as a fraction) and rounded ONCE to the cent, half up (away from
 *   zero on a tie, so a downgrade mirrors an upgrade); the credit is rounded the same way and
 *   the charge is credit + net, so charge − credit is the net difference to the cent;
 * - the due date never moves.
 */
export type Proration = {
  /** Shanghai calendar dates `YYYY-MM-DD`. */
  period_start: string;
  due_date: string;
  today: string;
  days_in_period: number;
  days_left: number;
  old_price: string;
  new_price: string;
  /** Unused part of the old (locked) price. */
  credit: string;
  /** The new price's part of the days left. */
  charge: string;
  /** charge − credit: positive for an upgrade (invoiced), negative for a downgrade (credited after the upstream confirmed). */
  difference: string;
};

export type ProrationInput = { oldPrice: Decimal.Value; newPrice: Decimal.Value; dueAt: Date; months: number; now: Date };

const DAY_MS = 86_400_000;

/** The Shanghai calendar date of an instant, as `YYYY-MM-DD`. */
export function shanghaiDate(at: Date): string {
  return (formatDateTime(at) ?? '').slice(0, 10);
}

/** A `YYYY-MM-DD` as a day number (days since 1970-01-01), for exact day differences. */
function dayNumber(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  return Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1) / DAY_MS;
}

/** Rounds an exact fraction (numerator in cents, positive integer denominator) to whole cents, half away from zero. */
function roundCents(numeratorCents: Decimal, denominator: number): Decimal {
  const Exact = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
  const cents = new Exact(numeratorCents).dividedBy(denominator).toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
  // No "-0.00": a zero is a zero.
  return cents.isZero() ? money(0) : money(cents.dividedBy(100));
}

/** Prorates the change from `oldPrice` to `newPrice` for the days left of the period ending at `dueAt`. */
export function prorate(input: ProrationInput): Proration {
  const due = shanghaiDate(input.dueAt);
  const start = shanghaiDate(dayjs(input.dueAt).tz(TIME_ZONE).subtract(input.months, 'month').toDate());
  const today = shanghaiDate(input.now);
  const daysInPeriod = Math.max(1, dayNumber(due) - dayNumber(start));
  const daysLeft = Math.min(daysInPeriod, Math.max(0, dayNumber(due) - dayNumber(today)));
  const oldPrice = money(input.oldPrice);
  const newPrice = money(input.newPrice);
  const credit = roundCents(oldPrice.times(100).times(daysLeft), daysInPeriod);
  const difference = roundCents(newPrice.minus(oldPrice).times(100).times(daysLeft), daysInPeriod);
  return {
    period_start: start,
    due_date: due,
    today,
    days_in_period: daysInPeriod,
    days_left: daysLeft,
    old_price: formatMoney(oldPrice),
    new_price: formatMoney(newPrice),
    credit: formatMoney(credit),
    charge: formatMoney(credit.plus(difference)),
    difference: formatMoney(difference),
  };
}

/** What an upgrade invoice asks: the positive difference (a downgrade's invoice is 0.00 and its credit comes later). */
export function invoicedAmount(proration: Pick<Proration, 'difference'>): string {
  const d = money(proration.difference);
  return formatMoney(d.isPositive() ? d : 0);
}

/** A downgrade's credit to the balance: the negated difference, or 0.00 for an upgrade. */
export function downgradeCredit(proration: Pick<Proration, 'difference'>): string {
  const d = money(proration.difference);
  return formatMoney(d.isNegative() ? d.negated() : 0);
}

/**
 * What a cancelled upgrade refunds: what is still refundable of what it charged (never more);
 * `requested` null means everything left.
 */
export function upgradeRefund(charged: Decimal.Value, alreadyRefunded: Decimal.Value, requested: Decimal.Value | null): string {
  const left = Decimal.max(0, money(charged).minus(alreadyRefunded));
  const asked = requested === null ? left : Decimal.max(0, money(requested));
  return formatMoney(Decimal.min(left, asked));
}

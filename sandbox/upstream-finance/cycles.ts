/** Months bought by each upstream cycle; `hour` and `onetime` are handled apart. */
const CYCLE_MONTHS: Record<string, number> = { monthly: 1, quarterly: 3, semiannually: 6, annually: 12, biennially: 24, triennially: 36 };

/** The upstream keeps its calendar in China time (UTC+8, no daylight saving). */
const CHINA_OFFSET_SECONDS = 8 * 3600;

/** The due date (epoch seconds) one cycle after `from`, by the China-time calendar; month ends clamp (Jan 31 → Feb 28). */
export function addCycle(from: number, cycle: string): number {
  if (cycle === 'hour') return from + 3600;
  const months = CYCLE_MONTHS[cycle];
  if (months === undefined) return 0;
  const date = new Date((from + CHINA_OFFSET_SECONDS) * 1000);
  const day = date.getUTCDate();
  const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return Math.floor(target.getTime() / 1000) - CHINA_OFFSET_SECONDS;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

import dayjs from 'dayjs';
import type { ServiceStatus } from '../../../db/models/service.js';
import { TIME_ZONE } from '../../../lib/time.js';

/** Renewable services: running or suspended (a suspended one comes back once renewed). */
export const RENEWABLE_STATUSES: readonly ServiceStatus[] = ['active', 'suspended'];

/**
 * The due date after renewing `months` from `base`, in Asia/Shanghai calendar months (Jan 31 +
 * 1 month = Feb 28/29), the way the upstream moves its own due date.
 */
export function extendDueDate(base: Date, months: number): Date {
  return dayjs(base).tz(TIME_ZONE).add(months, 'month').toDate();
}

/**
 * A renewal extends from the current due date, also when it has passed (an expired or
 * suspended service pays for contiguous periods, as the upstream bills its host); a service
 * without a due date extends from now.
 */
export function renewalBase(nextDueAt: Date | null, now: Date = new Date()): Date {
  return nextDueAt ?? now;
}

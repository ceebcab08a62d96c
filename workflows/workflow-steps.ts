import { ApplicationFailure, condition, upsertSearchAttributes } from '@temporalio/workflow';
import { SearchAttr } from './search-attributes.js';

/**
 * Steps several workflows take the same way (workflow code: deterministic, no I/O of its own).
 * Moving a step here changes no command of a recorded history: each runs the same calls in the
 * same order as the copies it replaced.
 */

/** Shows the run's business stage in the Temporal UI and to the admin lists (search attribute `BusinessStage`). */
export function setStage(value: string): void {
  upsertSearchAttributes([{ key: SearchAttr.BusinessStage, value }]);
}

/** An ActivityFailure says only "Activity task failed"; the reason is at the end of the cause chain. */
export function rootCauseMessage(err: unknown): string {
  let current: unknown = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

/** The failure type at the end of the cause chain: an ApplicationFailure's `type`, else the error's name. */
export function rootCauseType(err: unknown): string {
  let current: unknown = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  if (current instanceof ApplicationFailure && current.type) return current.type;
  return current instanceof Error ? current.name : 'Error';
}

/** The type of the first ApplicationFailure along the cause chain that has one (an activity's own refusal under the ActivityFailure), else null. */
export function failureType(err: unknown): string | null {
  let current: unknown = err;
  while (current instanceof Error) {
    if (current instanceof ApplicationFailure && current.type) return current.type;
    current = current.cause;
  }
  return null;
}

/** Set by a signal handler when the third party said something happened: the poll looks at once instead of at its next interval. */
export type Wake = { notified: boolean };

/**
 * Looks until `look` answers something or `deadline` (epoch ms, workflow time) passes: between
 * looks it waits for the wake signal or the next interval (`intervalsSeconds`, the last one
 * repeating; 30 s when empty), whichever comes first, and never past the deadline. `look`
 * answers null while the thing is still pending, and handles its own failures (a third party
 * away only delays the next look). Answers null when the deadline passed first.
 */
export async function pollUntil<T>(options: { deadline: number; intervalsSeconds: number[]; wake: Wake; look: () => Promise<T | null> }): Promise<T | null> {
  const intervals = options.intervalsSeconds.length > 0 ? options.intervalsSeconds : [30];
  for (let round = 0; ; round++) {
    const remaining = options.deadline - Date.now();
    if (remaining <= 0) return null;
    const intervalMs = (intervals[Math.min(round, intervals.length - 1)] ?? 30) * 1000;
    await condition(() => options.wake.notified, Math.min(intervalMs, remaining));
    options.wake.notified = false;
    const found = await options.look();
    if (found !== null) return found;
  }
}

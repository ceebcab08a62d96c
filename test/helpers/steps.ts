import { expect } from 'vitest';

export type StepRow = { stage: string; status: string; message: string };

/**
 * The rows of a step history (as the admin API lists them: newest first) between the first row
 * `from` and the first row `to` after it, oldest first: what happened within one step.
 */
export function stepsBetween(steps: StepRow[], from: { stage: string; status: string }, to: { stage: string; status: string }): StepRow[] {
  const ordered = [...steps].reverse();
  const start = ordered.findIndex((s) => s.stage === from.stage && s.status === from.status);
  expect(start, `${from.stage} ${from.status}`).toBeGreaterThanOrEqual(0);
  const end = ordered.findIndex((s, i) => i > start && s.stage === to.stage && s.status === to.status);
  expect(end, `${to.stage} ${to.status}`).toBeGreaterThan(start);
  return ordered.slice(start + 1, end);
}

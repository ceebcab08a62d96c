import { sqlOne, type SqlDeps, type Tx } from '../../db/sql.js';

/** A task's mark: the time its runs have read changes up to, and what else that reading depended on. */
export type Watermark = { until: Date; state: Record<string, unknown> };

/**
 * A task's watermark (`task_watermarks`, migration 0043): the time up to which its runs have
 * already looked at what changed, so the next run reads only what changed since (issue #35).
 * Null when the task has none yet: its run makes one full pass.
 */
export async function readWatermark(deps: SqlDeps, taskKey: string, tx?: Tx): Promise<Watermark | null> {
  return sqlOne<Watermark>(deps, 'SELECT until, state FROM task_watermarks WHERE task_key = $1', [taskKey], tx);
}

/**
 * Moves the watermark forward to `until` (with the run's `state`), never back: a guarded upsert
 * (no read before the write), so of two overlapping runs the mark of the one that started later
 * stays, whichever commits last, and a run that started earlier never hides what a later one has
 * not read yet. Answers whether it moved.
 */
export async function advanceWatermark(deps: SqlDeps, taskKey: string, until: Date, state: Record<string, unknown> = {}, tx?: Tx): Promise<boolean> {
  const row = await sqlOne<{ task_key: string }>(
    deps,
    `INSERT INTO task_watermarks (task_key, until, state) VALUES ($1, $2, $3)
     ON CONFLICT (task_key) DO UPDATE SET until = EXCLUDED.until, state = EXCLUDED.state, updated_at = now() WHERE task_watermarks.until < EXCLUDED.until
     RETURNING task_key`,
    [taskKey, until, JSON.stringify(state)],
    tx,
  );
  return row !== null;
}

/** The database's clock (the marks compare with times the database wrote). */
export async function databaseNow(deps: SqlDeps, tx?: Tx): Promise<Date> {
  return (await sqlOne<{ now: Date }>(deps, 'SELECT now() AS now', [], tx))!.now;
}

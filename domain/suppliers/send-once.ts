import { sqlOne } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { reconciliationEntry, type StepJournal } from './step-journal.js';

/**
 * Where a committing step keeps its "sent" mark: a nullable timestamp column of the row that owns
 * the step (a provisioning's upstream binding, a renewal's or traffic package's order). Names
 * are code constants, never input.
 */
export type SentMark = { table: string; key: string; id: number; column: string };

const IDENTIFIER = /^[a-z_]+$/;

/**
 * Writes the mark and answers whether it was already there, in one statement (the row is locked
 * while the old value is read): a step that runs again (a retry, or a new worker after a crash)
 * learns that an earlier send may have reached the upstream, even when that attempt never
 * returned.
 */
export async function markSent(deps: DomainDeps, mark: SentMark): Promise<boolean> {
  const { table, key, column } = mark;
  if (![table, key, column].every((name) => IDENTIFIER.test(name))) throw new Error(`invalid sent mark ${table}.${column}`);
  const row = await sqlOne<{ before: Date | null }>(
    deps,
    `UPDATE ${table} x SET ${column} = now(), updated_at = now()
       FROM (SELECT ${column} AS before FROM ${table} WHERE ${key} = $1 FOR UPDATE) prev
      WHERE x.${key} = $1 RETURNING prev.before`,
    [mark.id],
  );
  return (row?.before ?? null) !== null;
}

/** A committing upstream request (buy, renew, pay) and how to tell whether it already happened. */
export type SendOnceStep<T> = {
  mark: SentMark;
  /**
   * Asked only when the mark was already there: what the upstream has of the earlier request
   * (the order, the bill, "paid"), or null when it did not happen and the request is sent again.
   */
  reconcile: () => Promise<T | null>;
  /** The request itself; throws UpstreamStepError with the plugin's classification. */
  send: () => Promise<T>;
  /** The work's history, where a reconciliation leaves a row; `found` words what it found. */
  journal: { record: StepJournal; found: (value: T) => string };
};

export type SentOnce<T> = { value: T; via: 'sent' | 'reconciled' };

/**
 * The one way an upstream effect is made exactly once, for every kind of upstream work
 * (provisioning, renewals, traffic packages, upgrades): mark, then (when the mark was there
 * before) reconcile, then send. The upstream's own idempotency (a repeated reference, the same
 * bill for the same cycle) covers the last gap, a send that raced a lost answer. Every
 * reconciliation is a row of the work's history (what it found, or that it sends again), so an
 * admin reading a slow step sees why; `via` tells the caller how the value was found.
 */
export async function sendOnce<T>(deps: DomainDeps, step: SendOnceStep<T>): Promise<SentOnce<T>> {
  if (await markSent(deps, step.mark)) {
    const found = await step.reconcile();
    await step.journal.record(reconciliationEntry(found === null ? null : step.journal.found(found)));
    if (found !== null) return { value: found, via: 'reconciled' };
  }
  return { value: await step.send(), via: 'sent' };
}

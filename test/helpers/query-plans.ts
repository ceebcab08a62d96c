import { expect } from 'vitest';
import type { DomainDeps } from '../../domain/deps.js';
import { captureQueries, type CapturedQuery, type PlanNode } from '../../bench/lib/query-plans.js';

const PLANNABLE = /^\s*(SELECT|WITH|UPDATE|DELETE|INSERT)\b/i;

/** `captureQueries` of every plannable statement (writes too: a task's UPDATE or DELETE is planned like its reads). */
export function captureStatements<T>(work: () => Promise<T>): Promise<{ result: T; queries: CapturedQuery[] }> {
  return captureQueries(work, PLANNABLE);
}

function* nodes(plan: PlanNode): Generator<PlanNode> {
  yield plan;
  for (const child of plan.Plans ?? []) yield* nodes(child);
}

/** `EXPLAIN (FORMAT JSON)` of each captured statement (planned, not executed), with its parameters. */
export async function explainQueries(deps: DomainDeps, queries: CapturedQuery[]): Promise<Array<{ text: string; plan: PlanNode }>> {
  const plans: Array<{ text: string; plan: PlanNode }> = [];
  for (const q of queries) {
    const rows = await deps.db.read<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${q.text}`, q.values);
    const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
    if (plan) plans.push({ text: q.text, plan });
  }
  return plans;
}

/** Sequential scans of the given tables in the plans: `table: statement` per scan. */
export function seqScansOf(plans: Array<{ text: string; plan: PlanNode }>, tables: readonly string[]): string[] {
  return plans.flatMap(({ text, plan }) =>
    [...nodes(plan)]
      .filter((n) => n['Node Type'] === 'Seq Scan' && tables.includes(n['Relation Name'] ?? ''))
      .map((n) => `${n['Relation Name']}: ${text.replace(/\s+/g, ' ').slice(0, 200)}`),
  );
}

/**
 * The index reads of the plans: `<index> [cond: …] [filter: …]` for every node that uses an index
 * (index, index-only and bitmap index scans), to tell a range of the right index from a walk of
 * another one filtering rows on the way.
 */
export function indexReadsOf(plans: Array<{ text: string; plan: PlanNode }>): string[] {
  return plans.flatMap(({ plan }) =>
    [...nodes(plan)]
      .filter((n) => n['Index Name'])
      .map((n) => [n['Index Name'], n['Index Cond'] ? `cond: ${n['Index Cond']}` : '', n.Filter ? `filter: ${n.Filter}` : ''].filter(Boolean).join(' ')),
  );
}

/**
 * Runs `work` (a task's handler), then plans each statement it sent and asserts that none reads
 * one of `tables` by a sequential scan. Answers the work's result and how many statements touched
 * the tables (so a test can also assert the task did read them).
 */
export async function expectIndexedOnly<T>(deps: DomainDeps, tables: readonly string[], work: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const { result, queries } = await captureStatements(work);
  const touching = queries.filter((q) => tables.some((t) => new RegExp(`\\b${t}\\b`).test(q.text)));
  const plans = await explainQueries(deps, touching);
  expect(seqScansOf(plans, tables)).toEqual([]);
  return { result, statements: touching.length };
}

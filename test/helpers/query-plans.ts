import pg from 'pg';
import { expect } from 'vitest';
import type { DomainDeps } from '../../domain/deps.js';

/** A statement the code sent to PostgreSQL, as sent: its text and its parameters. */
export type CapturedQuery = { text: string; values: unknown[] };

const PLANNABLE = /^\s*(SELECT|WITH|UPDATE|DELETE|INSERT)\b/i;

/**
 * Runs `work` while recording every statement any pg client of this process sends (pg's own
 * `Client.prototype.query`, which Sequelize, `db.read` and `sqlRows` all end in): the task's real
 * queries, through its real code path, with their real parameters. Nothing is changed or faked:
 * each call goes on to pg as before.
 */
export async function captureQueries<T>(work: () => Promise<T>): Promise<{ result: T; queries: CapturedQuery[] }> {
  const queries: CapturedQuery[] = [];
  const original = pg.Client.prototype.query;
  const recording = function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args;
    const config = typeof first === 'string' ? { text: first, values: Array.isArray(second) ? second : [] } : (first as { text?: unknown; values?: unknown[] } | null);
    if (config && typeof config.text === 'string' && PLANNABLE.test(config.text)) queries.push({ text: config.text, values: config.values ?? (Array.isArray(second) ? second : []) });
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  };
  pg.Client.prototype.query = recording as typeof original;
  try {
    return { result: await work(), queries };
  } finally {
    pg.Client.prototype.query = original;
  }
}

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Filter?: string; 'Index Cond'?: string; Plans?: PlanNode[] };

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
  const { result, queries } = await captureQueries(work);
  const touching = queries.filter((q) => tables.some((t) => new RegExp(`\\b${t}\\b`).test(q.text)));
  const plans = await explainQueries(deps, touching);
  expect(seqScansOf(plans, tables)).toEqual([]);
  return { result, statements: touching.length };
}

import pg from 'pg';

/** A statement the code sent to PostgreSQL, as sent: its text and its parameters. */
export type CapturedQuery = { text: string; values: unknown[] };

/** What a plan is made of (`EXPLAIN (FORMAT JSON)`), the fields the checks read. */
export type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  'Plan Rows'?: number;
  'Subplans Removed'?: number;
  Plans?: PlanNode[];
};

const READS = /^\s*(SELECT|WITH)\b/i;

/**
 * Runs `work` while recording the statements every pg client of this process sends whose text
 * `accept` matches (reads by default): pg's own `Client.prototype.query`, which Sequelize,
 * `db.read` and `sqlRows` all end in, so the code's real statements with their real parameters
 * (the API must run in the same process). Nothing is changed: each call goes on to pg as before.
 * The one capture of the plan checks: the scale test and bench, the log volume test, the task tests.
 */
export async function captureQueries<T>(work: () => Promise<T>, accept: RegExp = READS): Promise<{ result: T; queries: CapturedQuery[] }> {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const queries: CapturedQuery[] = [];
  proto.query = function capture(this: unknown, ...args: unknown[]) {
    const [first, second] = args;
    const text = typeof first === 'string' ? first : (first as { text?: unknown } | null)?.text;
    const values = Array.isArray(second) ? second : ((first as { values?: unknown[] } | null)?.values ?? []);
    if (typeof text === 'string' && accept.test(text)) queries.push({ text, values });
    return original.apply(this, args);
  };
  try {
    return { result: await work(), queries };
  } finally {
    proto.query = original;
  }
}

/** Every node of a plan, the root first. */
export function planNodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}

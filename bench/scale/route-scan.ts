import type pg from 'pg';
import { LIST_WINDOW, lastPageWithin } from '../../lib/paging.js';
import { type CapturedQuery, type PlanNode } from '../lib/query-plans.js';

export { captureQueries } from '../lib/query-plans.js';

/**
 * The read routes a person waits on, as requests to time and to explain (issue #35): every GET
 * of the admin surface in the OpenAPI document (first page, a deep page, each documented filter
 * alone) and the lists and details of a client's own records, with sample values taken from each
 * parameter's schema. Shared by the scale bench (bench/scale/run-scale.ts) and the test that
 * fails on a sequential scan of a large table (test/bench/scale-plans.test.ts).
 */
export type ReadRequest = { surface: 'admin' | 'client'; route: string; variant: string; url: string };

type Parameter = {
  name: string;
  in: string;
  required?: boolean;
  schema?: { type?: string | string[]; enum?: string[]; format?: string; pattern?: string; maximum?: number; default?: unknown };
};
type Operation = { 'x-access'?: { surface?: string }; parameters?: Parameter[] };
export type OpenApiDocument = { paths: Record<string, Record<string, Operation>> };

/** Routes that call a third party on every read (an upstream balance, its catalogue, a live host): not database reads. */
const THIRD_PARTY_READS = [
  /\/suppliers\/\{supplier\}\/(balance|upstream-products)$/,
  /\/services\/\{id\}\/(runtime|monitoring|console|nat-rules|nat-rules\/limits|renew|traffic-packages|upgrade|security-groups)$/,
  /\/pay\/qrpay\/status$/,
  /\/economics\/funds$/,
  /\/auth\/2fa$/,
];

/**
 * The deep page of a list: the deepest page its own paging window allows at its default page size
 * (docs/api.md "Paging window"). The document's `maximum` of `page` is that window (the deepest page
 * at one row a page: 10,000 for a list, 2,000 for a log list; `listQuery` in api/schemas.ts).
 */
export function deepPage(query: readonly Parameter[]): number | null {
  const page = query.find((p) => p.name === 'page');
  if (!page) return null;
  const window = page.schema?.maximum ?? LIST_WINDOW;
  const size = Number(query.find((p) => p.name === 'page_size')?.schema?.default ?? 20);
  return lastPageWithin(size, window);
}

/**
 * The values of the requests: the heavy client's id (`user_id` filters, `{user}`), and the id of
 * one row of the table behind each route with a path id (`pathIds`, from `pathIdsOf`: null when
 * the data has no such row, and the route is then left out rather than timed as a 404).
 */
export type SampleIds = { userId: number; fallbackId: number; pathIds?: Readonly<Record<string, number | null>> };

/**
 * The table behind each route with a path id: one row's id, read from the data (`$1` the heavy
 * client: a client route reads his own rows, as he would). First match wins; a route matching
 * none (the catalogue's menus, groups and products, which the demo catalogue fills from id 1)
 * takes `fallbackId`.
 */
const PATH_ROWS: ReadonlyArray<{ route: RegExp; sql: string }> = [
  { route: /\{user\}/, sql: 'SELECT id FROM users WHERE id = $1' },
  { route: /^\/api\/v2\/client\/services\/\{id\}/, sql: 'SELECT id FROM services WHERE user_id = $1 ORDER BY id LIMIT 1' },
  { route: /^\/api\/v2\/client\/invoices\/\{id\}/, sql: 'SELECT id FROM invoices WHERE user_id = $1 ORDER BY id LIMIT 1' },
  { route: /^\/api\/v2\/client\/recharge\/\{id\}/, sql: "SELECT id FROM invoices WHERE user_id = $1 AND type = 'recharge' ORDER BY id LIMIT 1" },
  { route: /^\/api\/v2\/client\/balance-logs\/\{id\}/, sql: 'SELECT id FROM account_transactions WHERE user_id = $1 ORDER BY id LIMIT 1' },
  { route: /^\/api\/v2\/client\/tickets\/\{id\}/, sql: 'SELECT id FROM tickets WHERE user_id = $1 ORDER BY id LIMIT 1' },
  { route: /^\/api\/v2\/client\/security-groups\/\{id\}/, sql: 'SELECT id FROM security_groups WHERE user_id = $1 ORDER BY id LIMIT 1' },
  { route: /^\/api\/v2\/client\/referral-withdrawals\/\{id\}/, sql: 'SELECT id FROM referral_withdrawals WHERE user_id = $1 ORDER BY id LIMIT 1' },
  { route: /^\/api\/v2\/client\/(notices|help-articles)\/\{id\}/, sql: 'SELECT id FROM content_articles ORDER BY id LIMIT 1' },
  { route: /\/schedules\/task-runs\/\{id\}/, sql: 'SELECT id FROM task_runs ORDER BY id LIMIT 1' },
  { route: /\/logs\/system-logs\/\{id\}/, sql: 'SELECT id FROM system_logs ORDER BY id LIMIT 1' },
  { route: /\/(catalogue-)?audit-logs\/\{id\}/, sql: 'SELECT id FROM admin_audit_logs ORDER BY id LIMIT 1' },
  { route: /\/integration-plugins\/runtime-logs\/\{log\}/, sql: 'SELECT id FROM plugin_runtime_logs ORDER BY id LIMIT 1' },
  { route: /\/integration-plugins\/\{id\}/, sql: 'SELECT id FROM plugins ORDER BY id LIMIT 1' },
  { route: /\/(economics\/margins\/services|services|provisioning)\/\{(id|service)\}/, sql: 'SELECT id FROM services ORDER BY id LIMIT 1' },
  { route: /\/service-orders\/\{invoice\}/, sql: 'SELECT invoice_id AS id FROM service_orders ORDER BY invoice_id LIMIT 1' },
  { route: /\/invoices\/\{invoice\}/, sql: 'SELECT id FROM invoices ORDER BY id LIMIT 1' },
  { route: /\/payments\/\{payment\}/, sql: 'SELECT id FROM payments ORDER BY id LIMIT 1' },
  { route: /\/account-transactions\/\{transaction\}/, sql: 'SELECT id FROM account_transactions ORDER BY id LIMIT 1' },
  { route: /\/recharge-records\/\{record\}/, sql: 'SELECT id FROM recharge_records ORDER BY id LIMIT 1' },
  { route: /\/refunds\/\{refund\}/, sql: 'SELECT id FROM refunds ORDER BY id LIMIT 1' },
  { route: /\/tickets\/\{ticket\}/, sql: 'SELECT id FROM tickets ORDER BY id LIMIT 1' },
  { route: /\/content\/articles\/\{article\}/, sql: 'SELECT id FROM content_articles ORDER BY id LIMIT 1' },
  { route: /\/coupon-campaigns\/\{id\}/, sql: 'SELECT id FROM coupon_campaigns ORDER BY id LIMIT 1' },
  { route: /\/coupons\/\{id\}/, sql: 'SELECT id FROM coupons ORDER BY id LIMIT 1' },
  { route: /\/member-levels\/\{id\}/, sql: 'SELECT id FROM member_levels ORDER BY id LIMIT 1' },
  { route: /\/referral-withdrawals\/\{id\}/, sql: 'SELECT id FROM referral_withdrawals ORDER BY id LIMIT 1' },
  { route: /\/suppliers\/\{supplier\}/, sql: 'SELECT id FROM suppliers ORDER BY id LIMIT 1' },
];

/**
 * The path id of every GET route of `doc` with one (`SampleIds.pathIds`), read from the data as
 * `PATH_ROWS` says; `missing` names the routes whose table has no row (left out of the run).
 */
export async function pathIdsOf(client: pg.ClientBase, doc: OpenApiDocument, userId: number): Promise<{ pathIds: Record<string, number | null>; missing: string[] }> {
  const pathIds: Record<string, number | null> = {};
  const missing: string[] = [];
  for (const path of Object.keys(doc.paths)) {
    if (!doc.paths[path]?.get || !path.includes('{')) continue;
    const rule = PATH_ROWS.find((r) => r.route.test(path));
    if (!rule) continue;
    const row = (await client.query<{ id: number }>(rule.sql, rule.sql.includes('$1') ? [userId] : [])).rows[0];
    pathIds[path] = row ? Number(row.id) : null;
    if (!row) missing.push(path);
  }
  return { pathIds, missing };
}

function day(offsetDays: number): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

/** A value the parameter accepts: its enum's first member, an id of the data, a date, a keyword. */
export function sampleValue(parameter: Parameter, ids: SampleIds): string {
  const { name } = parameter;
  const schema = parameter.schema ?? {};
  if (schema.enum && schema.enum.length > 0) return String(schema.enum[0]);
  if (name === 'date_from' || name === 'from') return day(-30);
  if (name === 'date_to' || name === 'to') return day(0);
  if (name === 'user_id' || name === 'invitee_id') return String(ids.userId);
  if (name === 'stuck_minutes') return '30';
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'integer' || type === 'number') return String(ids.fallbackId);
  if (name === 'keyword' || name === 'account') return '1234';
  // A free string: one its pattern takes (`scene`, a settings `group`: lower case and underscores).
  const free = `scale-${name}`;
  return schema.pattern && !new RegExp(schema.pattern).test(free) ? `scale_${name}` : free;
}

/** The other end of a range a route takes as two parameters. */
const PAIRS: Record<string, string> = { date_from: 'date_to', date_to: 'date_from', from: 'to', to: 'from' };

function fillPath(path: string, ids: SampleIds): string {
  const id = ids.pathIds?.[path];
  return path.replace(/\{([^}]+)\}/g, (_, param: string) => String(param === 'user' ? ids.userId : (id ?? ids.fallbackId)));
}

export function readRequests(doc: OpenApiDocument, ids: SampleIds): ReadRequest[] {
  const out: ReadRequest[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    const op = methods.get;
    const surface = op?.['x-access']?.surface;
    if (!op || (surface !== 'admin' && surface !== 'client')) continue;
    if (THIRD_PARTY_READS.some((re) => re.test(path))) continue;
    if (ids.pathIds?.[path] === null) continue; // no row of its table in the data: a 404 measures nothing
    const query = (op.parameters ?? []).filter((p) => p.in === 'query');
    const pair = (name: string) => query.find((p) => p.name === PAIRS[name]);
    const param = (p: Parameter) => `${p.name}=${encodeURIComponent(sampleValue(p, ids))}`;
    // What every request of the route sends: its required parameters, and a range's other end.
    const required = query.filter((p) => p.required);
    const base = (extra: Parameter[] = []) => {
      const sent = [...required, ...extra.filter((p) => !required.includes(p))];
      const withEnds = [...sent, ...sent.flatMap((p) => (pair(p.name) && !sent.includes(pair(p.name)!) ? [pair(p.name)!] : []))];
      return withEnds.length > 0 ? `${fillPath(path, ids)}?${withEnds.map(param).join('&')}` : fillPath(path, ids);
    };
    const join = (url: string, more: string) => `${url}${url.includes('?') ? '&' : '?'}${more}`;
    out.push({ surface, route: path, variant: 'first page', url: base() });
    const deep = deepPage(query);
    if (deep !== null) out.push({ surface, route: path, variant: `page ${deep}`, url: join(base(), `page=${deep}`) });
    for (const parameter of query) {
      if (parameter.name === 'page' || parameter.name === 'page_size' || parameter.required) continue;
      out.push({ surface, route: path, variant: param(parameter), url: base([parameter]) });
    }
  }
  return out;
}

/**
 * Reads that scan on purpose or are known misses, each with its reason (docs/benchmarks.md
 * "Years of business"); an entry goes once its route reads by index. `onlySmall`: a plan the
 * planner rightly picks on the test's 4,000 clients and not at 10× (the bench checks these there).
 */
export const KNOWN_SCANS: ReadonlyArray<{ route: RegExp; why: string; onlySmall?: true }> = [
  { route: /^\/api\/v2\/admin\/finance\/integrity$/, why: 'the ledger integrity check reads every row by design' },
  { route: /^\/api\/v2\/admin\/economics\/margins\/services\/summary$/, why: 'all-time margins are summed from every money line (miss: needs running totals per service)' },
  {
    route: /^\/api\/v2\/admin\/(dashboard|economics\/margins\/report(\/summary)?)$/,
    why: "a month's margin lines probe their upstream costs by index at 10×; at 4,000 clients the planner hashes the cost table (70,000 rows) instead",
    onlySmall: true,
  },
];

/** Whether the scans of `route` are known (above): at the test's small size, or at any size. */
export function knownScan(route: string, size: 'small' | 'large' = 'small'): boolean {
  return KNOWN_SCANS.some((k) => k.route.test(route) && (size === 'small' || !k.onlySmall));
}

/**
 * The sequential scans in the plans of `queries` over tables holding more than `minRows` rows
 * (by the planner's own row count), as "table (rows)" strings; empty when every read of a large
 * table goes through an index. A scan under a LIMIT whose filter keeps at least half the table
 * (none at all: the count within the paging window of an unfiltered list; or a filter nearly
 * every row passes) reads at most about twice the limit's rows, as an index would, and is not
 * one of them.
 */
export async function sequentialScans(client: pg.ClientBase, queries: CapturedQuery[], minRows: number): Promise<string[]> {
  const sizes = new Map(
    (await client.query<{ name: string; rows: string }>(`SELECT relname AS name, reltuples::bigint::text AS rows FROM pg_class WHERE relkind IN ('r', 'p')`)).rows.map(
      (r) => [r.name, Number(r.rows)],
    ),
  );
  const found = new Set<string>();
  for (const q of queries) {
    let plan: PlanNode;
    try {
      const res = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${q.text}`, q.values);
      plan = res.rows[0]!['QUERY PLAN'][0]!.Plan;
    } catch {
      continue; // a statement EXPLAIN cannot take (a cursor, a utility statement): not a list read
    }
    const walk = (node: PlanNode, limited: boolean) => {
      if (node['Node Type'] === 'Seq Scan' && node['Relation Name']) {
        const rows = sizes.get(node['Relation Name']) ?? 0;
        const bounded = limited && (node.Filter === undefined || (node['Plan Rows'] ?? 0) >= rows / 2);
        if (rows > minRows && !bounded) found.add(`${node['Relation Name']} (${rows} rows): ${q.text.replace(/\s+/g, ' ').slice(0, 160)}`);
      }
      const passesLimit = limited || node['Node Type'] === 'Limit';
      for (const child of node.Plans ?? []) walk(child, passesLimit && ['Limit', 'Seq Scan', 'Subquery Scan', 'Result'].includes(node['Node Type']));
    };
    walk(plan, false);
  }
  return [...found];
}

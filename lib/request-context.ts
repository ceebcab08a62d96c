import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What is known about the request being answered, reachable from any code it calls (domain
 * functions, model hooks) without threading it through every signature: the request id (also
 * the trace id when tracing is on), the client address, and the admin audit's `before` image a
 * domain function may offer. Absent outside a request (workers, scripts).
 */
export type RequestContext = {
  requestId: string;
  ip: string;
  userAgent: string;
  /** A domain function's redacted picture of the target before the change (see `offerAuditBefore`). */
  auditBefore?: unknown;
  /** The audit target a domain function names when the route's path does not (a created row's id). */
  auditTarget?: { type: string; id: string };
  /**
   * What the audit records as the request's fields instead of the body, when the body holds
   * secrets its key names do not reveal (see `offerAuditRequest`).
   */
  auditRequest?: unknown;
  /**
   * The admin audit of this request: each transaction that commits during the call inserts its
   * row before its COMMIT (see `writePendingAudit`); set by the audit middleware on admin writes only.
   */
  pendingAudit?: PendingAudit;
  /** Rows inserted during an admin write (table and id), so that a create's target is known before its commit. */
  auditCreated?: Array<{ table: string; id: string }>;
};

/** How long a transaction committing beside another of its request waits for the audit chain's head. */
const BESIDE_LOCK_TIMEOUT = '2s';

/** Runs one statement on the committing transaction's connection. */
export type AuditQuery = (sql: string, bind: unknown[]) => Promise<unknown>;

/**
 * An admin write's audit, written in the transactions of its changes. The first transaction of
 * the call that commits inserts the `request` row (the call: route, target, request fields,
 * `before`, status 200 and code 0, the outcome of a committed change); each later one that
 * commits inserts an `answer` row naming the call (status 200, code 0, the target known then),
 * so no change of the call commits without a row. `written`: the `request` row committed;
 * `closed`: the answer is made (work left running after it writes no row); `open`: transactions
 * of the request open now (`enterTransaction`).
 */
export type PendingAudit = {
  written: boolean;
  closed: boolean;
  open: number;
  write(query: AuditQuery, source: 'request' | 'answer'): Promise<void>;
};

/**
 * Counts a transaction of the current request as open until the function it answers is called
 * (with whether it committed). A transaction that commits while another of the request is open
 * (a second connection) waits at most `BESIDE_LOCK_TIMEOUT` for the chain head, which the other
 * may hold (a catalogue row inserted early) while it waits for this one: then it is refused and
 * rolls back (see `writePendingAudit`). Rows a transaction that rolled back inserted are no
 * longer candidates for the audit target (`noteCreatedRow`).
 */
export function enterTransaction(): ((committed: boolean) => void) | null {
  const context = storage.getStore();
  const audit = context?.pendingAudit;
  if (!context || !audit) return null;
  audit.open += 1;
  const mark = context.auditCreated?.length ?? 0;
  return (committed) => {
    audit.open -= 1;
    if (!committed && context.auditCreated && context.auditCreated.length > mark) context.auditCreated.length = mark;
  };
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * Lets the admin audit record what the target looked like before this request changed it. The
 * value is redacted when the audit row is written; harmless outside a request.
 */
export function offerAuditBefore(value: unknown): void {
  const context = storage.getStore();
  if (context) context.auditBefore = value;
}

/**
 * Replaces the request body in the admin audit: for a body whose secrets the key-name redaction
 * cannot recognise (settings: `values["registration.invite_code"]`), the domain, which knows
 * which keys are secret, offers the body with those values already removed.
 */
export function offerAuditRequest(value: unknown): void {
  const context = storage.getStore();
  if (context) context.auditRequest = value;
}

/** Names the audit target when the route's path has none (a create). */
export function offerAuditTarget(type: string, id: string | number): void {
  const context = storage.getStore();
  if (context) context.auditTarget = { type, id: String(id) };
}

/** Whether the current request is an admin write not answered yet and with no transaction open: a write outside a transaction gets one, with its row. */
export function pendingAuditOpen(): boolean {
  const audit = storage.getStore()?.pendingAudit;
  return audit !== undefined && !audit.closed && audit.open === 0;
}

/**
 * A row inserted during an admin write (`sqlRows` for an INSERT that answers an `id`, and every
 * model `create`): the first one in the table of the route's collection is the target of a
 * create whose path names none, written in the transaction (`createdTarget`).
 */
export function noteCreatedRow(table: string, id: unknown): void {
  const context = storage.getStore();
  if (!context?.pendingAudit || context.pendingAudit.closed) return;
  if (typeof id !== 'number' && typeof id !== 'string' && typeof id !== 'bigint') return;
  const created = (context.auditCreated ??= []);
  if (created.length < 32) created.push({ table, id: String(id) });
}

/** The first row created in the table of `collection` (`product-menus` → `product_menus`, `roles` → `admin_roles`). */
export function createdTarget(context: RequestContext, collection: string): { type: string; id: string } | null {
  const name = collection.replace(/-/g, '_');
  const row = context.auditCreated?.find((r) => r.table === name || r.table.endsWith(`_${name}`));
  return row ? { type: collection, id: row.id } : null;
}

/**
 * Runs `work` (follow-up work queued after a commit, `afterCommit`) with the request's id and
 * address but outside its admin audit: what it writes is not a change of the call.
 */
export function outsideAdminAudit<T>(work: () => T): T {
  const context = storage.getStore();
  if (!context?.pendingAudit) return work();
  return storage.run({ requestId: context.requestId, ip: context.ip, userAgent: context.userAgent }, work);
}

/**
 * Called by every transaction helper (`db/sql.ts`, the wrapped `sequelize.transaction`) right
 * before COMMIT: during an admin write not answered yet, the call's row is inserted on the
 * transaction's connection (`request` by the first transaction that commits, `answer` by later
 * ones), so the change and its row commit together (or neither: a failing insert fails the
 * transaction). Answers the function to call once the transaction has ended (`true` when it
 * committed), or null when nothing was written (no request, not an admin write, or answered).
 * Costs one AsyncLocalStorage lookup elsewhere.
 */
export async function writePendingAudit(query: AuditQuery): Promise<((committed: boolean) => void) | null> {
  const audit = storage.getStore()?.pendingAudit;
  if (!audit || audit.closed) return null;
  const source = audit.written ? 'answer' : 'request';
  // Another transaction of the request is open: never wait long for the chain head, which that
  // other transaction may hold (a catalogue row inserted early) while it waits for this one.
  // Given up, this transaction is refused (rolled back): its change never commits without a row.
  if (audit.open > 1) await query(`SET LOCAL lock_timeout = '${BESIDE_LOCK_TIMEOUT}'`, []);
  await audit.write(query, source);
  return (committed) => {
    if (committed && source === 'request') audit.written = true;
  };
}

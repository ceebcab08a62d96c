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
   * The admin audit row of this request, waiting for the first transaction that commits during
   * the request (see `writePendingAudit`); set by the audit middleware on admin writes only.
   */
  pendingAudit?: PendingAudit;
};

/** How long a transaction committing beside another of its request waits for the audit chain's head. */
const BESIDE_LOCK_TIMEOUT = '2s';

/** Runs one statement on the committing transaction's connection. */
export type AuditQuery = (sql: string, bind: unknown[]) => Promise<unknown>;

/**
 * An admin write's audit row, to be inserted in the transaction of the change. `open`: not
 * written yet; `claimed`: being written by a transaction that has not committed; `written`: it
 * committed with a change; `closed`: the request was answered (later transactions, e.g. work
 * left running after the answer, do not write it).
 */
export type PendingAudit = {
  state: 'open' | 'claimed' | 'written' | 'closed';
  write(query: AuditQuery): Promise<void>;
  /** Transactions of the request open now (`enterTransaction`). */
  open: number;
};

/**
 * Counts a transaction of the current request as open, until the answered function is called.
 * A transaction that commits while another of the request is open (a second connection) writes
 * the row too, but waits at most `BESIDE_LOCK_TIMEOUT` for the chain head, which the other may
 * hold (a catalogue row inserted early) while it waits for this one (see `writePendingAudit`).
 */
export function enterTransaction(): (() => void) | null {
  const audit = storage.getStore()?.pendingAudit;
  if (!audit) return null;
  audit.open += 1;
  return () => {
    audit.open -= 1;
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

/**
 * Whether the current request is an admin write: its transactions (each holding the audit chain's
 * head from its audit row to COMMIT) are run again whole when the database aborts one for a
 * deadlock or a serialization failure, instead of answering 500 (db/sql.ts, db/sequelize.ts).
 */
export function inAdminWrite(): boolean {
  return storage.getStore()?.pendingAudit !== undefined;
}

/** Whether the current request is an admin write whose audit row is not written and that has no transaction open. */
export function pendingAuditOpen(): boolean {
  const audit = storage.getStore()?.pendingAudit;
  return audit?.state === 'open' && audit.open === 0;
}

/**
 * Called by every transaction helper (`db/sql.ts`, the wrapped `sequelize.transaction`) right
 * before COMMIT: when the current request is an admin write whose audit row is not written yet,
 * it is inserted on the transaction's connection, so the change and its row commit together
 * (or neither: a failing insert fails the transaction). Answers the function to call once the
 * transaction has ended (`true` when it committed), or null when nothing was written (no
 * request, not an admin write, or already written: the first committing transaction writes it).
 * Costs one AsyncLocalStorage lookup elsewhere.
 */
export async function writePendingAudit(query: AuditQuery): Promise<((committed: boolean) => void) | null> {
  const audit = storage.getStore()?.pendingAudit;
  if (!audit || audit.state !== 'open') return null;
  audit.state = 'claimed';
  if (audit.open > 1) {
    // Another transaction of the request is open: this one writes the row too (its change must
    // not commit without it), but never waits long for the chain head, which that other
    // transaction may hold (a catalogue row inserted early) while it waits for this one. Given
    // up (a savepoint keeps the change), the row is left to the next transaction that commits.
    try {
      await query('SAVEPOINT pending_audit', []);
      await query(`SET LOCAL lock_timeout = '${BESIDE_LOCK_TIMEOUT}'`, []);
      await audit.write(query);
      await query('RELEASE SAVEPOINT pending_audit', []);
      await query('SET LOCAL lock_timeout = DEFAULT', []);
    } catch {
      await query('ROLLBACK TO SAVEPOINT pending_audit', []);
      await query('SET LOCAL lock_timeout = DEFAULT', []);
      audit.state = 'open';
      return null;
    }
  } else {
    try {
      await audit.write(query);
    } catch (err) {
      audit.state = 'open';
      throw err;
    }
  }
  return (committed) => {
    if (audit.state === 'claimed') audit.state = committed ? 'written' : 'open';
  };
}

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
};

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

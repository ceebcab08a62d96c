import type { OperatorType } from '../../db/models/money.js';

/** Who did it: an admin, the user themself, or the system (workflows, notifications). */
export type Operator = { type: OperatorType; id: number | null; name: string };

/** Carried by every write: the operator and the request's trace id, stored on each money row. */
export type Audit = { operator: Operator; traceId: string };

export const SYSTEM_OPERATOR: Operator = { type: 'system', id: null, name: '系统' };

export function systemAudit(traceId = ''): Audit {
  return { operator: SYSTEM_OPERATOR, traceId: traceId.slice(0, 64) };
}

export function userAudit(userId: number, traceId: string): Audit {
  return { operator: { type: 'user', id: userId, name: '' }, traceId: traceId.slice(0, 64) };
}

export function adminAudit(admin: { id: number; username: string }, traceId: string): Audit {
  return { operator: { type: 'admin', id: admin.id, name: admin.username.slice(0, 64) }, traceId: traceId.slice(0, 64) };
}

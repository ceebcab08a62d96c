import { type Actor, adminActor, SYSTEM_ACTOR, userActor } from '../../lib/actor.js';

/** Carried by every write: who did it (stored as the row's `operator_*`) and the request's trace id. */
export type Audit = { operator: Actor; traceId: string };

export function systemAudit(traceId = ''): Audit {
  return { operator: SYSTEM_ACTOR, traceId: traceId.slice(0, 64) };
}

export function actorAudit(actor: Actor, traceId: string): Audit {
  return { operator: actor, traceId: traceId.slice(0, 64) };
}

export function userAudit(userId: number, traceId: string): Audit {
  return { operator: userActor(userId), traceId: traceId.slice(0, 64) };
}

export function adminAudit(admin: { id: number; username: string }, traceId: string): Audit {
  return { operator: adminActor(admin), traceId: traceId.slice(0, 64) };
}

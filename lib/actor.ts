/**
 * Who did it, one shape everywhere: money rows (`operator_*` columns), service and order
 * events, catalogue audit, supplier imports, admin decisions on upstream work, plugin calls.
 * `user` is a client account (never "client" or "customer" here); `system` is the platform
 * itself (workflows, scheduled tasks, seeders), with a null id.
 */
export const ACTOR_TYPES = ['admin', 'user', 'system'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export type Actor = { type: ActorType; id: number | null; name: string };

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, name: '系统' };

/** Names are cut to 64 characters: they are stored beside the id on audit rows. */
export function adminActor(admin: { id: number; username: string }): Actor {
  return { type: 'admin', id: admin.id, name: admin.username.slice(0, 64) };
}

/**
 * The admin behind a decision on upstream work. Decisions recorded before `Actor` carried a
 * type arrive without one: a decider is an admin whatever the payload says.
 */
export function deciderActor(decider: { id: number | null; name: string }): Actor {
  return { type: 'admin', id: decider.id, name: decider.name };
}

export function userActor(userId: number): Actor {
  return { type: 'user', id: userId, name: '' };
}

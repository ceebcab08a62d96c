import { AppError, ErrorCode } from '../../../lib/errors.js';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import type { DomainDeps } from '../../deps.js';
import { consoleSettings } from '../../settings/groups/console.js';
import { readSettings } from '../../settings/settings.js';

/**
 * A user's console calls per scope and minute: writes (NAT, security groups) and monitoring
 * reads. The defaults; admins change them in the `console` settings group.
 */
export const CONSOLE_ACTION_LIMITS = {
  network: { perMinute: 30, label: 'NAT 端口转发操作', setting: 'network_per_minute' },
  security: { perMinute: 30, label: '安全组操作', setting: 'security_per_minute' },
  monitoring: { perMinute: 60, label: '监控查询', setting: 'monitoring_per_minute' },
} as const;
export type ConsoleActionScope = keyof typeof CONSOLE_ACTION_LIMITS;

/**
 * Counts one call of the user in the scope's current minute (one upsert: concurrent calls count
 * exactly) and refuses it with 42900 beyond the limit. The user's windows older than an hour
 * are dropped on the way, so the table holds only recent minutes of active users.
 */
export async function takeConsoleAction(deps: DomainDeps, userId: number, scope: ConsoleActionScope): Promise<void> {
  const limit = CONSOLE_ACTION_LIMITS[scope];
  const perMinute = (await readSettings(deps, consoleSettings))[limit.setting];
  const row = await sqlOne<{ hits: number }>(
    deps,
    `INSERT INTO client_action_hits (user_id, scope, window_start, hits) VALUES ($1, $2, date_trunc('minute', now()), 1)
     ON CONFLICT (user_id, scope, window_start) DO UPDATE SET hits = client_action_hits.hits + 1
     RETURNING hits`,
    [userId, scope],
  );
  if ((row?.hits ?? 0) === 1) {
    await sqlRows(deps, `DELETE FROM client_action_hits WHERE user_id = $1 AND window_start < now() - interval '1 hour'`, [userId]);
  }
  if ((row?.hits ?? 0) > perMinute) {
    throw new AppError(ErrorCode.TOO_MANY_REQUESTS, `${limit.label}过于频繁，每分钟最多 ${perMinute} 次，请稍后再试`);
  }
}

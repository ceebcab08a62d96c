import { QueryTypes } from 'sequelize';
import type { DomainDeps } from '../../domain/deps.js';
import { insertAuditRecords } from '../../domain/logs/admin-audit.js';
import { recordSystemLog } from '../../domain/logs/system-logs.js';
import { DEMO_CLIENT } from './demo.js';

/**
 * Operations demo data for `npm run dev`: an operations role that sees the dashboard, logs and
 * audit; a note on the demo user; an audit row and a system log row, so the lists are not empty
 * before anyone clicks. Checks before writing: a second start changes nothing.
 */
export async function seedOperationsDemo(deps: DomainDeps): Promise<string[]> {
  const created: string[] = [];
  const { AdminRole, User } = deps.db.models;
  const [, roleCreated] = await AdminRole.findOrCreate({
    where: { code: 'ops_observer' },
    defaults: { code: 'ops_observer', name: '运维观察员', permissions: ['dashboard.view', 'log.view', 'audit.view', 'schedule.view', 'user.view'], is_super: false },
  });
  if (roleCreated) created.push('role:ops_observer');
  const user = await User.findOne({ where: { email: DEMO_CLIENT.email } });
  if (user) {
    const [notes] = await deps.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM user_notes WHERE user_id = :id', {
      replacements: { id: user.id },
      type: QueryTypes.SELECT,
    });
    if (!notes?.n) {
      await deps.db.sequelize.query(`INSERT INTO user_notes (user_id, admin_name, content) VALUES (:id, 'system', '演示用户：可用于体验下单、续费与工单')`, {
        replacements: { id: user.id },
      });
      created.push('user-note');
    }
  }
  const [audits] = await deps.db.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin_audit_logs WHERE source = 'request'`, { type: QueryTypes.SELECT });
  if (!audits?.n && user) {
    await insertAuditRecords(deps, [
      {
        adminId: 0,
        adminName: 'system',
        method: 'PUT',
        route: '/api/v2/admin/users/{user}',
        status: 200,
        code: 0,
        targetType: 'user',
        targetId: String(user.id),
        action: 'update',
        before: { nickname: '演示' },
        after: { nickname: user.nickname },
        request: { body: { nickname: user.nickname } },
        requestId: 'demo-seed',
        ip: '127.0.0.1',
        userAgent: 'seed',
        at: new Date(),
      },
    ]);
    created.push('audit-row');
    await recordSystemLog(deps, { category: 'startup', event: 'demo.seeded', message: '演示数据已写入', process: 'dev' });
  }
  return created;
}

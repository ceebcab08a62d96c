import { expect } from 'vitest';
import type { TestClient } from './billing.js';
import type { TestPlatform } from './platform.js';

/** The visible department the ticket tests write to, made through the admin API; answers its id. */
export async function createSupportDepartment(platform: TestPlatform, root: string): Promise<number> {
  const dept = await platform.api.post('/api/v2/admin/ticket-departments', {
    token: root,
    body: { name: '技术支持', description: '服务器与网络问题', notify_email: 'support-desk@example.com', sort_order: 1 },
  });
  expect(dept.body.code, dept.body.message).toBe(0);
  return dept.body.data.id as number;
}

/** A client's new ticket (a high-priority login problem unless `body` says otherwise); answers its id. */
export async function createTicket(platform: TestPlatform, client: TestClient, departmentId: number, body: Record<string, unknown> = {}): Promise<number> {
  // Tests create many tickets for one user: their earlier posts leave the rate-limit window (tested on its own).
  await platform.deps.db.sequelize.query(`UPDATE ticket_replies SET created_at = created_at - interval '1 hour' WHERE user_id = ${Number(client.id)}`);
  const res = await platform.api.post('/api/v2/client/tickets', {
    token: client.token,
    body: { department_id: departmentId, subject: '服务器无法登录', body: '您好，\n我的服务器 SSH 连不上。<script>alert(1)</script>', priority: 'high', ...body },
  });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data.id as number;
}

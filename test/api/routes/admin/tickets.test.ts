import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient, type TestClient } from '../../../helpers/billing.js';
import { selectRows } from '../../../helpers/db-read.js';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { createSupportDepartment, createTicket as newTicket } from '../../../helpers/tickets.js';

let platform: TestPlatform;
let root: string;
let alice: TestClient;
let departmentId: number;

const createTicket = (client: TestClient, body: Record<string, unknown> = {}) => newTicket(platform, client, departmentId, body);

beforeAll(async () => {
  platform = await startTestPlatform();
  root = await platform.rootToken();
  alice = await registerClient(platform);
  departmentId = await createSupportDepartment(platform, root);
  await platform.api.post('/api/v2/admin/ticket-departments', { token: root, body: { name: '内部', is_visible: false } });
});
afterAll(() => platform?.close());

describe('departments', () => {
  it('pages the admin department list like every list (page_size honoured)', async () => {
    const all = await platform.api.get('/api/v2/admin/ticket-departments', { token: root });
    expect(Object.keys(all.body.data).sort()).toEqual(['list', 'page', 'page_size', 'total']);
    expect(all.body.data.total).toBeGreaterThanOrEqual(2);
    const one = await platform.api.get('/api/v2/admin/ticket-departments', { token: root, query: { page: 2, page_size: 1 } });
    expect(one.body.data).toEqual({ list: [all.body.data.list[1]], total: all.body.data.total, page: 2, page_size: 1 });
  });

  it('refuses a duplicate name, an invalid e-mail, and deleting a department with tickets', async () => {
    expectError(await platform.api.post('/api/v2/admin/ticket-departments', { token: root, body: { name: '技术支持' } }), 42200, 422);
    expectError(await platform.api.post('/api/v2/admin/ticket-departments', { token: root, body: { name: '财务', notify_email: 'nope' } }), 42200, 422);
    await createTicket(alice);
    expectError(await platform.api.del(`/api/v2/admin/ticket-departments/${departmentId}`, { token: root }), 40901, 409);
    expectError(await platform.api.put('/api/v2/admin/ticket-departments/999999', { token: root, body: { name: 'x' } }), 40400, 404);
  });

  it('updates and deletes an unused department', async () => {
    const made = await platform.api.post('/api/v2/admin/ticket-departments', { token: root, body: { name: '临时部门' } });
    const id = made.body.data.id;
    const updated = await platform.api.put(`/api/v2/admin/ticket-departments/${id}`, { token: root, body: { description: '说明', notify_email: null } });
    expect(updated.body.data).toMatchObject({ name: '临时部门', description: '说明', notify_email: null });
    expect((await platform.api.del(`/api/v2/admin/ticket-departments/${id}`, { token: root })).body.code).toBe(0);
    expect(await selectRows(platform, 'SELECT id FROM ticket_departments WHERE id = $1', [id])).toEqual([]);
  });
});

describe('admin tickets and the status flow', () => {
  it('replies publicly (answered) and internally (hidden from the client); the customer reply moves it to customer_reply', async () => {
    const id = await createTicket(alice);
    const note = await platform.api.post(`/api/v2/admin/tickets/${id}/reply`, { token: root, body: { body: '内部：查一下宿主机', internal: true } });
    expect(note.body.data.status).toBe('open');
    const reply = await platform.api.post(`/api/v2/admin/tickets/${id}/reply`, { token: root, body: { body: '您好，已为您重启。' } });
    expect(reply.body.data.status).toBe('answered');
    expect(reply.body.data.replies.map((r: { is_internal: boolean }) => r.is_internal)).toEqual([false, true, false]);

    const seen = await platform.api.get(`/api/v2/client/tickets/${id}`, { token: alice.token });
    expect(seen.body.data.replies).toHaveLength(2);
    expect(seen.raw).not.toContain('查一下宿主机');

    const answer = await platform.api.post(`/api/v2/client/tickets/${id}/reply`, { token: alice.token, body: { body: '好了，谢谢' } });
    expect(answer.body.data.status).toBe('customer_reply');
  });

  it('assigns, changes status (close and reopen), and filters the list', async () => {
    const id = await createTicket(alice, { subject: '需要分配的工单', priority: 'urgent' });
    expectError(await platform.api.post(`/api/v2/admin/tickets/${id}/assign`, { token: root, body: { admin_id: 999_999 } }), 42200, 422);
    const assigned = await platform.api.post(`/api/v2/admin/tickets/${id}/assign`, { token: root, body: { admin_id: 1 } });
    expect(assigned.body.data.assignee).toMatchObject({ id: 1 });
    const closed = await platform.api.post(`/api/v2/admin/tickets/${id}/status`, { token: root, body: { status: 'closed' } });
    expect(closed.body.data).toMatchObject({ status: 'closed', closed_by: 'staff' });
    expectError(await platform.api.post(`/api/v2/admin/tickets/${id}/reply`, { token: root, body: { body: '回复' } }), 40955, 409);
    const reopened = await platform.api.post(`/api/v2/admin/tickets/${id}/status`, { token: root, body: { status: 'open' } });
    expect(reopened.body.data).toMatchObject({ status: 'open', closed_by: null, closed_at: null });

    const filtered = await platform.api.get('/api/v2/admin/tickets', { token: root, query: { priority: 'urgent', assignee_id: 1, keyword: '分配', sort: '-id' } });
    expect(filtered.body.data.list.map((t: { id: number }) => t.id)).toEqual([id]);
    const byUser = await platform.api.get(`/api/v2/admin/users/${alice.id}/tickets`, { token: root, query: { status: 'open' } });
    expect(byUser.body.data.list.every((t: { user: { id: number } }) => t.user.id === alice.id)).toBe(true);
    expectError(await platform.api.get('/api/v2/admin/users/999999/tickets', { token: root }), 40400, 404);
    expectError(await platform.api.get('/api/v2/admin/tickets', { token: root, query: { sort: 'subject' } }), 42200, 422);
    expectError(await platform.api.get('/api/v2/admin/tickets/999999', { token: root }), 40400, 404);
    expectError(await platform.api.post(`/api/v2/admin/tickets/${id}/status`, { token: root, body: { status: 'deleted' } }), 42200, 422);
  });
});

describe('deep pages of the admin ticket list', () => {
  it('answer the same rows, order and joined fields as one ordered read, for each sort (ties on the sort key included)', async () => {
    const bob = await registerClient(platform);
    // 23 tickets of one client: last replies in 5 distinct minutes (ties), priorities in turn, each
    // with a public reply and a later internal note (the excerpt is the public one).
    const ids: number[] = [];
    for (let i = 0; i < 23; i += 1) {
      const [ticket] = await selectRows<{ id: number }>(
        platform,
        `INSERT INTO tickets (user_id, department_id, subject, priority, status, last_reply_at, last_reply_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'open', date_trunc('minute', now()) - make_interval(mins => $5), 'user', now() - make_interval(secs => $6), now()) RETURNING id`,
        [bob.id, departmentId, `深翻页 ${i}`, ['low', 'normal', 'high', 'urgent'][i % 4], i % 5, i],
      );
      ids.push(ticket!.id);
      await selectRows(
        platform,
        `INSERT INTO ticket_replies (ticket_id, author_type, user_id, admin_id, body, is_internal)
         VALUES ($1, 'user', $2, NULL, $3, false), ($1, 'staff', NULL, 1, '内部备注', true) RETURNING id`,
        [ticket!.id, bob.id, `第 ${i} 条回复`],
      );
    }
    const orders: Array<[string | undefined, string]> = [
      [undefined, 't.last_reply_at DESC, t.id DESC'],
      ['priority', "array_position(ARRAY['low','normal','high','urgent']::varchar[], t.priority) ASC, t.id DESC"],
      ['-created_at', 't.created_at DESC, t.id DESC'],
      ['id', 't.id ASC, t.id DESC'],
    ];
    for (const [sort, order] of orders) {
      const expected = await selectRows<{ id: number; subject: string }>(platform, `SELECT t.id, t.subject FROM tickets t WHERE t.user_id = $1 ORDER BY ${order}`, [bob.id]);
      const seen: Array<{ id: number; subject: string; excerpt: string; user: { id: number; email: string } }> = [];
      for (let page = 1; page <= 6; page += 1) {
        const res = await platform.api.get('/api/v2/admin/tickets', { token: root, query: { user_id: String(bob.id), page: String(page), page_size: '4', ...(sort ? { sort } : {}) } });
        expect(res.body.data.total).toBe(23);
        seen.push(...res.body.data.list);
      }
      expect(seen.map((t) => t.id)).toEqual(expected.map((t) => t.id));
      for (const ticket of seen) {
        expect(ticket.excerpt).toBe(`第 ${ticket.subject.split(' ')[1]} 条回复`);
        expect(ticket.user.id).toBe(bob.id);
        expect(ticket.user.email).toMatch(/@example.com$/);
      }
    }
    expect(ids).toHaveLength(23);
  });
});

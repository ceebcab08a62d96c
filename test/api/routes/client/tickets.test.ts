import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { sqlOne, sqlRows } from '../../../../db/sql.js';
import { autoCloseTickets } from '../../../../domain/support/auto-close.js';
import { sendTicketReplyNotice } from '../../../../domain/support/ticket-notices.js';
import { expectError } from '../../../helpers/http.js';
import { type Notifier, startNotifier } from '../../../helpers/lifecycle.js';
import { registerClient, type TestClient } from '../../../helpers/billing.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { createSupportDepartment, createTicket as newTicket } from '../../../helpers/tickets.js';
import { PNG_1X1, uploadFile } from '../../../helpers/uploads.js';
import { eventually } from '../../../helpers/wait.js';

let platform: TestPlatform;
let notifier: Notifier;
let root: string;
let alice: TestClient;
let bob: TestClient;
let departmentId: number;
let hiddenDepartmentId: number;

const uploadAttachment = (token: string, bytes: Buffer, name: string, type?: string) => uploadFile(platform, '/api/v2/client/tickets/attachments', token, bytes, name, type);
const createTicket = (client: TestClient, body: Record<string, unknown> = {}) => newTicket(platform, client, departmentId, body);

function mailsTo(address: string) {
  return notifier.mail.control.messages().filter((m) => m.to.includes(address));
}

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true });
  notifier = await startNotifier(platform);
  root = await platform.rootToken();
  alice = await registerClient(platform);
  bob = await registerClient(platform);
  await platform.deps.db.sequelize.query(`UPDATE users SET phone = '1380013' || lpad(id::text, 4, '0') WHERE id = ${alice.id}`);
  departmentId = await createSupportDepartment(platform, root);
  const hidden = await platform.api.post('/api/v2/admin/ticket-departments', { token: root, body: { name: '内部', is_visible: false } });
  hiddenDepartmentId = hidden.body.data.id;
});

afterAll(async () => {
  await notifier?.stop();
  await platform?.close();
});

describe('departments', () => {
  it('shows clients the visible departments only, without the notification address', async () => {
    const res = await platform.api.get('/api/v2/client/ticket-departments', { token: alice.token });
    expect(res.body.data).toEqual({ list: [expect.objectContaining({ id: departmentId })], total: 1, page: 1, page_size: 20 });
    expect(res.raw).not.toContain('support-desk@example.com');
  });
});

describe('client tickets', () => {
  it('creates a ticket with an attachment; the list shows an excerpt, the detail the plain text and a viewer-bound link', async () => {
    const upload = await uploadAttachment(alice.token, PNG_1X1, 'screen.png', 'image/png');
    expect(upload.body.code, upload.body.message).toBe(0);
    const id = await createTicket(alice, { body: `${'很长的描述。'.repeat(40)}<b>粗体</b>`, attachments: [upload.body.data.asset_id] });

    const list = await platform.api.get('/api/v2/client/tickets', { token: alice.token });
    const item = list.body.data.list.find((t: { id: number }) => t.id === id);
    expect(item).toMatchObject({ status: 'open', priority: 'high', department: { id: departmentId, name: '技术支持' } });
    expect(item.excerpt.length).toBeLessThanOrEqual(100);
    expect(item).not.toHaveProperty('body');
    expect(item).not.toHaveProperty('replies');

    const detail = await platform.api.get(`/api/v2/client/tickets/${id}`, { token: alice.token });
    expect(detail.body.data.replies).toHaveLength(1);
    expect(detail.body.data.replies[0].body).toContain('<b>粗体</b>');
    const [attachment] = detail.body.data.attachments;
    expect(attachment).toMatchObject({ name: 'screen.png', type: 'image/png', deleted: false, reply_id: detail.body.data.replies[0].id });
    expect(detail.body.data.replies[0].attachment_ids).toEqual([attachment.id]);
    expect(attachment.url).toMatch(/^\/api\/secure-assets\/view\?asset=/);
    const own = await fetch(`${platform.baseUrl}${attachment.url}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(own.status).toBe(200);
    expect(Buffer.from(await own.arrayBuffer()).equals(PNG_1X1)).toBe(true);
    const other = await fetch(`${platform.baseUrl}${attachment.url}`, { headers: { authorization: `Bearer ${bob.token}` } });
    expect(other.status).toBe(403);
    const anonymous = await fetch(`${platform.baseUrl}${attachment.url}`);
    expect(anonymous.status).toBe(403);
    // The admin's own link works for the admin.
    const adminView = await platform.api.get(`/api/v2/admin/tickets/${id}`, { token: root });
    const adminUrl = adminView.body.data.attachments[0].url as string;
    expect((await fetch(`${platform.baseUrl}${adminUrl}`, { headers: { authorization: `Bearer ${root}` } })).status).toBe(200);
    expect((await fetch(`${platform.baseUrl}${adminUrl}`, { headers: { authorization: `Bearer ${alice.token}` } })).status).toBe(403);
  });

  it("never shows, answers or changes another user's ticket (40400), and refuses another user's attachment and service", async () => {
    const id = await createTicket(alice);
    expectError(await platform.api.get(`/api/v2/client/tickets/${id}`, { token: bob.token }), 40400, 404);
    expectError(await platform.api.post(`/api/v2/client/tickets/${id}/reply`, { token: bob.token, body: { body: '插一句' } }), 40400, 404);
    expectError(await platform.api.post(`/api/v2/client/tickets/${id}/close`, { token: bob.token }), 40400, 404);
    const bobsList = await platform.api.get('/api/v2/client/tickets', { token: bob.token });
    expect(bobsList.body.data.list.map((t: { id: number }) => t.id)).not.toContain(id);

    const alicesUpload = await uploadAttachment(alice.token, Buffer.from('日志内容\n'), 'log.txt');
    expectError(
      await platform.api.post('/api/v2/client/tickets', {
        token: bob.token,
        body: { department_id: departmentId, subject: '借用附件', body: '正文', attachments: [alicesUpload.body.data.asset_id] },
      }),
      42200,
      422,
    );
    const service = await sqlOne<{ id: number }>(platform.deps, 'SELECT id FROM services LIMIT 1', []);
    expectError(
      await platform.api.post('/api/v2/client/tickets', { token: bob.token, body: { department_id: departmentId, subject: 'x', body: 'y', service_id: service?.id ?? 1 } }),
      42200,
      422,
    );
    const state = await platform.api.get(`/api/v2/admin/tickets/${id}`, { token: root });
    expect(state.body.data.status).toBe('open');
    expect(state.body.data.replies).toHaveLength(1);
  });

  it('refuses bad input with 42200 and changes nothing', async () => {
    const before = await sqlOne<{ n: number }>(platform.deps, 'SELECT count(*)::int AS n FROM tickets', []);
    const bad: Record<string, unknown>[] = [
      { department_id: departmentId, subject: '', body: 'x' },
      { department_id: departmentId, subject: 'x', body: '   ' },
      { department_id: departmentId, subject: 'x', body: 'y'.repeat(10_001) },
      { department_id: departmentId, subject: 'x', body: 'y', priority: 'critical' },
      { department_id: hiddenDepartmentId, subject: 'x', body: 'y' },
      { department_id: 999_999, subject: 'x', body: 'y' },
      { department_id: departmentId, subject: 'x', body: 'y', attachments: ['../../etc/passwd'] },
      { department_id: departmentId, subject: 'x', body: 'y', attachments: Array(6).fill('a'.repeat(32)) },
      { department_id: departmentId, subject: 'x', body: 'y', html: '<p>' },
    ];
    for (const body of bad) expectError(await platform.api.post('/api/v2/client/tickets', { token: alice.token, body }), 42200, 422);
    const after = await sqlOne<{ n: number }>(platform.deps, 'SELECT count(*)::int AS n FROM tickets', []);
    expect(after?.n).toBe(before?.n);
  });

  it('closes a ticket; a closed ticket refuses replies (40955) and a second close', async () => {
    const id = await createTicket(alice);
    const closed = await platform.api.post(`/api/v2/client/tickets/${id}/close`, { token: alice.token });
    expect(closed.body.data).toMatchObject({ status: 'closed', closed_by: 'user' });
    expectError(await platform.api.post(`/api/v2/client/tickets/${id}/reply`, { token: alice.token, body: { body: '还在吗' } }), 40955, 409);
    expectError(await platform.api.post(`/api/v2/client/tickets/${id}/close`, { token: alice.token }), 40955, 409);
  });

  it('rate-limits replies per user (new tickets count), answering 42900', async () => {
    const carol = await registerClient(platform);
    const id = await createTicket(carol);
    for (let i = 0; i < 9; i += 1) {
      const res = await platform.api.post(`/api/v2/client/tickets/${id}/reply`, { token: carol.token, body: { body: `补充 ${i}` } });
      expect(res.body.code, res.body.message).toBe(0);
    }
    expectError(await platform.api.post(`/api/v2/client/tickets/${id}/reply`, { token: carol.token, body: { body: '再补充' } }), 42900, 429);
    // Another user is not affected.
    expect((await platform.api.post(`/api/v2/client/tickets/${await createTicket(bob)}/reply`, { token: bob.token, body: { body: '你好' } })).body.code).toBe(0);
  });
});

describe('ticket notices', () => {
  it('mails (and texts) the customer once on a staff reply, and the department once on a customer reply', async () => {
    const id = await createTicket(alice);
    // The customer's new ticket goes to the department mailbox.
    await eventually(async () => (mailsTo('support-desk@example.com').some((m) => m.subject.includes(`#${id}`)) ? true : null));
    const reply = await platform.api.post(`/api/v2/admin/tickets/${id}/reply`, { token: root, body: { body: '处理好了' } });
    const replyId = reply.body.data.replies.at(-1).id as number;
    const email = (await sqlOne<{ email: string }>(platform.deps, 'SELECT email FROM users WHERE id = $1', [alice.id]))?.email as string;
    await eventually(async () => {
      const rows = await sqlRows<{ channel: string; status: string }>(
        platform.deps,
        "SELECT channel, status FROM notification_log WHERE kind = 'ticket_staff_reply' AND entity_id = $1 AND occasion = $2",
        [id, `reply:${replyId}`],
      );
      return rows.length === 2 && rows.every((r) => r.status === 'sent') ? rows : null;
    });
    const replyMails = () => mailsTo(email).filter((m) => m.subject.includes('新回复') && m.text?.includes(`#${id}`));
    expect(replyMails()).toHaveLength(1);
    expect(replyMails()[0]?.text).not.toContain('处理好了');
    const texts = notifier.sms.control.messages().filter((m) => m.template_code === 'SMS_TICKET_REPLY' && m.params.ticket_id === String(id));
    expect(texts).toHaveLength(1);

    // Performing the intent again (a relay retry) sends nothing more.
    expect(await sendTicketReplyNotice(platform.deps, replyId)).toBe('mail already, sms already');
    expect(replyMails()).toHaveLength(1);

    // An internal note notifies nobody.
    const note = await platform.api.post(`/api/v2/admin/tickets/${id}/reply`, { token: root, body: { body: '内部', internal: true } });
    expect(await sendTicketReplyNotice(platform.deps, note.body.data.replies.at(-1).id)).toBe('internal note');
  });
});

describe('auto-close', () => {
  it('reminds once, then closes once, each notice sent once', async () => {
    const id = await createTicket(alice);
    await platform.api.post(`/api/v2/admin/tickets/${id}/reply`, { token: root, body: { body: '请确认是否解决' } });
    await platform.deps.db.sequelize.query(`UPDATE tickets SET status = 'closed', closed_at = now(), closed_by = 'staff' WHERE status <> 'closed' AND id <> ${id}`);
    const email = (await sqlOne<{ email: string }>(platform.deps, 'SELECT email FROM users WHERE id = $1', [alice.id]))?.email as string;
    const reminders = () => mailsTo(email).filter((m) => m.subject.includes('即将自动关闭'));
    const closings = () => mailsTo(email).filter((m) => m.subject.includes('已自动关闭'));

    // Not yet due.
    expect(await autoCloseTickets(platform.deps, { taskRunId: null })).toMatchObject({ reminded: 0, closed: 0 });
    await platform.deps.db.sequelize.query(`UPDATE tickets SET last_reply_at = now() - interval '6 days 1 hour' WHERE id = ${id}`);
    expect(await autoCloseTickets(platform.deps, { taskRunId: null })).toMatchObject({ reminded: 1, reminded_ids: [id], closed: 0 });
    expect(await autoCloseTickets(platform.deps, { taskRunId: null })).toMatchObject({ reminded: 0, closed: 0 });
    expect(reminders()).toHaveLength(1);

    // Past the age but not 24 hours after the reminder: still open.
    await platform.deps.db.sequelize.query(`UPDATE tickets SET last_reply_at = now() - interval '8 days', reminded_at = now() - interval '2 hours' WHERE id = ${id}`);
    expect(await autoCloseTickets(platform.deps, { taskRunId: null })).toMatchObject({ closed: 0 });
    await platform.deps.db.sequelize.query(`UPDATE tickets SET reminded_at = now() - interval '25 hours' WHERE id = ${id}`);
    expect(await autoCloseTickets(platform.deps, { taskRunId: null })).toMatchObject({ closed: 1, closed_ids: [id] });
    expect(await autoCloseTickets(platform.deps, { taskRunId: null })).toMatchObject({ reminded: 0, closed: 0 });
    expect(closings()).toHaveLength(1);
    // The reminder was re-announced with a changed reminded_at only as a new occasion: the test moved it, the task did not.
    const detail = await platform.api.get(`/api/v2/client/tickets/${id}`, { token: alice.token });
    expect(detail.body.data).toMatchObject({ status: 'closed', closed_by: 'auto' });
  });

  it('starts the wait over on a customer reply', async () => {
    const id = await createTicket(alice);
    await platform.api.post(`/api/v2/admin/tickets/${id}/reply`, { token: root, body: { body: '请确认' } });
    await platform.deps.db.sequelize.query(`UPDATE tickets SET last_reply_at = now() - interval '6 days 2 hours' WHERE id = ${id}`);
    await autoCloseTickets(platform.deps, { taskRunId: null });
    await platform.api.post(`/api/v2/client/tickets/${id}/reply`, { token: alice.token, body: { body: '还没解决' } });
    const row = await sqlOne<{ status: string; reminded_at: Date | null }>(platform.deps, 'SELECT status, reminded_at FROM tickets WHERE id = $1', [id]);
    expect(row).toMatchObject({ status: 'customer_reply', reminded_at: null });
  });

  it('runs as the built-in task through the schedules trigger', async () => {
    const res = await platform.api.post('/api/v2/admin/schedules/tickets.auto_close/trigger', { token: root });
    expect(res.body.code, res.body.message).toBe(0);
    const run = await eventually(async () => {
      const row = await sqlOne<{ status: string }>(platform.deps, "SELECT status FROM task_runs WHERE task_key = 'tickets.auto_close' AND status IN ('succeeded', 'failed')", []);
      return row;
    });
    expect(run.status).toBe('succeeded');
  });
});

describe('a client write in a deadlock', () => {
  it('is run again whole: the request answers without a server error and makes one ticket', async () => {
    const { sequelize } = platform.deps.db;
    await sequelize.query(`UPDATE ticket_replies SET created_at = created_at - interval '1 hour' WHERE user_id = ${Number(bob.id)}`);
    const before = await sqlOne<{ n: number }>(platform.deps, 'SELECT count(*)::int AS n FROM tickets WHERE user_id = $1', [bob.id]);
    // The ticket's transaction takes bob's reply-rate lock, then waits for the department row
    // (its INSERT's key share) which this transaction holds; this one then wants the reply-rate
    // lock: a deadlock the ticket's transaction detects (this one checks only after 30 s), so it
    // is the one the database aborts.
    let answer: ReturnType<typeof platform.api.post> | null = null;
    await sequelize.transaction(async (transaction) => {
      await sequelize.query(`SET LOCAL deadlock_timeout = '30s'`, { transaction });
      const [me] = await sequelize.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', { transaction, type: QueryTypes.SELECT });
      await sequelize.query('SELECT id FROM ticket_departments WHERE id = $1 FOR UPDATE', { bind: [departmentId], transaction });
      answer = platform.api.post('/api/v2/client/tickets', {
        token: bob.token,
        body: { department_id: departmentId, subject: '死锁中的工单', body: '请帮忙看看', priority: 'low' },
      });
      await eventually(async () => {
        const waiting = await sqlRows<{ n: number }>(
          platform.deps,
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`,
          [me?.pid],
        );
        return (waiting[0]?.n ?? 0) >= 1 ? true : null;
      });
      await sequelize.query(`SELECT pg_advisory_xact_lock(hashtext('ticket-reply'), $1)`, { bind: [bob.id], transaction });
    });
    const res = await (answer as unknown as ReturnType<typeof platform.api.post>);
    expect(res.status).toBeLessThan(500);
    expect(res.body.code, res.body.message).toBe(0);
    const after = await sqlOne<{ n: number }>(platform.deps, 'SELECT count(*)::int AS n FROM tickets WHERE user_id = $1', [bob.id]);
    expect(after?.n).toBe((before?.n ?? 0) + 1);
  });
});

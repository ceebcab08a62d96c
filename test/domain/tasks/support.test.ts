import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { runTask } from '../../../domain/tasks/run-task.js';
import { type Notifier, startNotifier } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { expectIndexedOnly } from '../../helpers/query-plans.js';

/**
 * `tickets.auto_close` at the size of a reseller's third year: 50,000 tickets, of which 20 are
 * due a reminder and 10 due the close. Its statements read the tickets through indexes only (no
 * sequential scan of `tickets` or `notification_log`), it changes exactly the due tickets, sends
 * each notice once, and a second run changes and sends nothing.
 */

let platform: TestPlatform;
let notifier: Notifier;

const run = () => runTask(platform.deps, { taskRunId: null as unknown as number, taskKey: 'tickets.auto_close', trigger: 'manual', slotAt: null });

beforeAll(async () => {
  platform = await startTestPlatform();
  notifier = await startNotifier(platform);
  const deps = platform.deps;
  await sqlRows(deps, `INSERT INTO users (email, password_hash) SELECT 'scale-' || g || '@example.com', 'x' FROM generate_series(1, 2000) g RETURNING id`, []);
  const dept = await sqlOne<{ id: number }>(deps, `INSERT INTO ticket_departments (name) VALUES ('规模测试') RETURNING id`, []);
  const users = `(SELECT array_agg(id ORDER BY id) AS ids FROM users WHERE email LIKE 'scale-%')`;
  // History: 49,000 tickets closed long ago (by users, staff and the task), 470 answered recently (not due), 500 open.
  await sqlRows(
    deps,
    `INSERT INTO tickets (user_id, department_id, subject, priority, status, last_reply_at, last_reply_by, reminded_at, closed_at, closed_by, created_at)
     SELECT u.ids[1 + g % 2000], $1, '历史工单 ' || g, 'normal',
            CASE WHEN g <= 49000 THEN 'closed' WHEN g <= 49470 THEN 'answered' ELSE 'open' END,
            CASE WHEN g <= 49000 THEN now() - (10 + g % 900) * interval '1 day' ELSE now() - (g % 100) * interval '1 hour' END,
            CASE WHEN g <= 49470 THEN 'staff' ELSE 'user' END,
            CASE WHEN g <= 49000 AND g % 3 = 2 THEN now() - (9 + g % 900) * interval '1 day' END,
            CASE WHEN g <= 49000 THEN now() - (4 + g % 900) * interval '1 day' END,
            CASE WHEN g <= 49000 THEN (ARRAY['user', 'staff', 'auto'])[1 + g % 3] END,
            now() - (10 + g % 900) * interval '1 day'
       FROM generate_series(1, 49970) g, ${users} u`,
    [dept!.id],
  );
  // Due: 20 waiting past the reminder's time (6 days 2 hours), 10 reminded 25 hours ago and waiting 8 days.
  await sqlRows(
    deps,
    `INSERT INTO tickets (user_id, department_id, subject, priority, status, last_reply_at, last_reply_by, reminded_at)
     SELECT u.ids[g], $1, CASE WHEN g <= 20 THEN '待提醒 ' ELSE '待关闭 ' END || g, 'normal', 'answered',
            CASE WHEN g <= 20 THEN now() - interval '6 days 2 hours' ELSE now() - interval '8 days' END, 'staff',
            CASE WHEN g > 20 THEN now() - interval '25 hours' END
       FROM generate_series(1, 30) g, ${users} u`,
    [dept!.id],
  );
  // The notification log of past years: 60,000 notices sent.
  await sqlRows(
    deps,
    `INSERT INTO notification_log (kind, channel, entity_type, entity_id, occasion, user_id, recipient, subject, status, attempts, sent_at, created_at)
     SELECT 'ticket_auto_closed', 'mail', 'ticket', 100000 + g, 'closed:' || g, u.ids[1 + g % 2000], 'sc***@example.com', '历史', 'sent', 1, now(), now() - (g % 80) * interval '1 day'
       FROM generate_series(1, 60000) g, ${users} u`,
    [],
  );
  await sqlRows(deps, 'ANALYZE tickets', []);
  await sqlRows(deps, 'ANALYZE notification_log', []);
  await sqlRows(deps, 'ANALYZE users', []);
}, 300_000);

afterAll(async () => {
  await notifier?.stop();
  await platform?.close();
});

describe('tickets.auto_close over 50,000 tickets', () => {
  it('reads through indexes only, reminds and closes exactly the due tickets, each notice once; a second run does nothing', async () => {
    const due = await sqlRows<{ id: number; subject: string }>(platform.deps, `SELECT id, subject FROM tickets WHERE subject LIKE '待%' ORDER BY id`, []);
    const toRemind = due.filter((t) => t.subject.startsWith('待提醒')).map((t) => t.id);
    const toClose = due.filter((t) => t.subject.startsWith('待关闭')).map((t) => t.id);
    expect([toRemind.length, toClose.length]).toEqual([20, 10]);

    const first = await expectIndexedOnly(platform.deps, ['tickets', 'notification_log'], run);
    expect(first.statements).toBeGreaterThan(0);
    expect(first.result).toMatchObject({ reminded: 20, closed: 10, reminder_notices: { notices: 20, mail_sent: 20 }, closed_notices: { notices: 10, mail_sent: 10 } });

    const changed = await sqlRows<{ id: number; status: string; closed_by: string | null }>(
      platform.deps,
      `SELECT id, status, closed_by FROM tickets WHERE updated_at > now() - interval '10 minutes' AND (reminded_at > now() - interval '10 minutes' OR closed_at > now() - interval '10 minutes') ORDER BY id`,
      [],
    );
    expect(changed.map((t) => t.id)).toEqual([...toRemind, ...toClose].sort((a, b) => a - b));
    expect(changed.filter((t) => t.status === 'closed').map((t) => t.id)).toEqual(toClose);
    expect(changed.filter((t) => t.status === 'closed').every((t) => t.closed_by === 'auto')).toBe(true);
    const mails = () => notifier.mail.control.messages().filter((m) => m.subject.includes('自动关闭'));
    expect(mails()).toHaveLength(30);

    const second = await expectIndexedOnly(platform.deps, ['tickets', 'notification_log'], run);
    expect(second.result).toMatchObject({ reminded: 0, closed: 0, reminder_notices: { notices: 0 }, closed_notices: { notices: 0 } });
    expect(mails()).toHaveLength(30);
    const logged = await sqlOne<{ n: number }>(
      platform.deps,
      `SELECT count(*)::int AS n FROM notification_log WHERE entity_type = 'ticket' AND entity_id = ANY($1::int[]) AND status = 'sent'`,
      [[...toRemind, ...toClose]],
    );
    expect(logged?.n).toBe(30);
  });
});

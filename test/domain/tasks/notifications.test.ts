import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { runTask } from '../../../domain/tasks/run-task.js';
import { createUser, daysFromNow, seedService, type Notifier, startNotifier } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { expectIndexedOnly } from '../../helpers/query-plans.js';

/**
 * The reminder tasks over 100,000 services (most due months ahead, 10,000 terminated long ago)
 * and 100,000 invoices of history: `notifications.due_reminders` and
 * `notifications.account_notices` read `services` and `invoices` through indexes only, notify
 * exactly the due services and invoices, and send nothing on a second run.
 */

let platform: TestPlatform;
let notifier: Notifier;
let owner: { id: number; email: string | null };
const LARGE = ['services', 'invoices'] as const;

const run = (taskKey: string) => () => runTask(platform.deps, { taskRunId: null as unknown as number, taskKey, trigger: 'manual', slotAt: null });

beforeAll(async () => {
  platform = await startTestPlatform();
  notifier = await startNotifier(platform);
  const deps = platform.deps;
  owner = await createUser(platform, { phone: null });
  const template = await seedService(platform, { userId: owner.id, nextDueAt: daysFromNow(200) });
  await sqlRows(deps, `INSERT INTO users (email, password_hash) SELECT 'remind-' || g || '@example.com', 'x' FROM generate_series(1, 1000) g RETURNING id`, []);
  const users = `(SELECT array_agg(id ORDER BY id) AS ids FROM users WHERE email LIKE 'remind-%')`;
  const t = `(SELECT product_id, order_id, invoice_id FROM services WHERE id = ${Number(template)}) t`;
  await sqlRows(
    deps,
    `INSERT INTO services (user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, price, next_due_at, product_name, activated_at, terminated_at)
     SELECT u.ids[1 + g % 1000], t.product_id, t.order_id, t.invoice_id, g + 1, CASE WHEN g % 10 = 0 THEN 'terminated' ELSE 'active' END, 'cloud_server', 'monthly', 30,
            CASE WHEN g % 10 = 0 THEN now() - (30 + g % 700) * interval '1 day' ELSE now() + (30 + g % 335) * interval '1 day' END, '历史服务', now() - interval '400 days',
            CASE WHEN g % 10 = 0 THEN now() - (20 + g % 700) * interval '1 day' END
       FROM generate_series(1, 100000) g, ${users} u, ${t}`,
    [],
  );
  // The owner's due services: 6 due in 2 days (a renewal reminder each), 4 past due (an overdue notice each), 2 terminated an hour ago by the lifecycle.
  const due = (name: string, n: number, status: string, next: string) =>
    sqlRows(
      deps,
      `INSERT INTO services (user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, price, next_due_at, product_name, activated_at, terminated_at)
       SELECT $1, t.product_id, t.order_id, t.invoice_id, 200000 + (SELECT count(*) FROM services) + g, $2::varchar, 'cloud_server', 'monthly', 30, now() + $3::interval, $4,
              now() - interval '60 days', CASE WHEN $2::varchar = 'terminated' THEN now() - interval '1 hour' END
         FROM generate_series(1, $5::int) g, ${t} RETURNING id`,
      [owner.id, status, next, name, n],
    );
  await due('即将到期', 6, 'active', '2 days');
  await due('已逾期', 4, 'active', '-1 day');
  const ended = await due('刚终止', 2, 'terminated', '-10 days');
  await sqlRows(
    deps,
    `INSERT INTO service_events (service_id, kind, stage, status, message, operator_type) SELECT id, 'lifecycle', 'terminate', 'succeeded', '终止', 'system' FROM unnest($1::int[]) id`,
    [ended.map((r) => (r as { id: number }).id)],
  );
  // Invoices: 100,000 paid of history, 1,000 unpaid purchases an hour old (not yet reminded), 3 unpaid purchases 30 hours old (reminder due).
  await sqlRows(
    deps,
    `INSERT INTO invoices (user_id, type, status, subject, amount, balance_amount, payment_channel, paid_at, created_at)
     SELECT u.ids[1 + g % 1000], 'purchase', 'paid', '历史账单', 30, 30, 'balance', now() - (g % 1000) * interval '1 day', now() - (g % 1000) * interval '1 day'
       FROM generate_series(1, 100000) g, ${users} u`,
    [],
  );
  await sqlRows(
    deps,
    `INSERT INTO invoices (user_id, type, status, subject, amount, created_at)
     SELECT CASE WHEN g <= 3 THEN $1 ELSE u.ids[1 + g % 1000] END, 'purchase', 'unpaid', CASE WHEN g <= 3 THEN '待提醒账单' ELSE '新近账单' END, 30,
            CASE WHEN g <= 3 THEN now() - interval '30 hours' ELSE now() - interval '1 hour' END
       FROM generate_series(1, 1003) g, ${users} u`,
    [owner.id],
  );
  for (const table of ['services', 'invoices', 'users', 'service_events', 'service_orders', 'payments']) await sqlRows(deps, `ANALYZE ${table}`, []);
}, 300_000);

afterAll(async () => {
  await notifier?.stop();
  await platform?.close();
});

describe('reminder tasks over 100,000 services and invoices', () => {
  const mailsTo = () => notifier.mail.control.messages().filter((m) => m.to.includes(owner.email ?? '')).length;

  it('notifications.due_reminders: one reminder per due service and one overdue notice per late service; nothing again', async () => {
    const before = mailsTo();
    const first = await expectIndexedOnly(platform.deps, LARGE, run('notifications.due_reminders'));
    expect(first.result).toMatchObject({ renewal_due: { notices: 6, mail_sent: 6 }, service_overdue: { notices: 4, mail_sent: 4 } });
    expect(mailsTo() - before).toBe(10);
    const second = await expectIndexedOnly(platform.deps, LARGE, run('notifications.due_reminders'));
    expect(second.result).toMatchObject({ renewal_due: { notices: 6, mail_already: 6 }, service_overdue: { notices: 4, mail_already: 4 } });
    expect(mailsTo() - before).toBe(10);
  });

  it('notifications.account_notices: the due unpaid-invoice reminders and the termination notices, once', async () => {
    const before = mailsTo();
    const first = await expectIndexedOnly(platform.deps, LARGE, run('notifications.account_notices'));
    expect(first.result).toMatchObject({ invoice_unpaid: { notices: 3, mail_sent: 3 }, service_terminated: { notices: 2, mail_sent: 2 } });
    expect(mailsTo() - before).toBe(5);
    const second = await expectIndexedOnly(platform.deps, LARGE, run('notifications.account_notices'));
    expect(second.result).toMatchObject({ invoice_unpaid: { notices: 3, mail_already: 3 }, service_terminated: { notices: 2, mail_already: 2 } });
    expect(mailsTo() - before).toBe(5);
    const logged = await sqlOne<{ n: number }>(platform.deps, `SELECT count(*)::int AS n FROM notification_log WHERE user_id = $1 AND status = 'sent'`, [owner.id]);
    expect(logged?.n).toBe(15);
  });
});

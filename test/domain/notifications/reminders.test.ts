import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemAudit } from '../../../domain/billing/audit.js';
import { insertInvoice } from '../../../domain/billing/invoices/insert-invoice.js';
import { inTransaction } from '../../../db/sql.js';
import { sendAccountNotices } from '../../../domain/notifications/send-account-notices.js';
import { reminderThreshold, sendDueReminders } from '../../../domain/notifications/send-due-reminders.js';
import { createUser, daysFromNow, type Notifier, seedRenewInvoice, seedService, startNotifier } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

let platform: TestPlatform;
let notifier: Notifier;
const run = { taskRunId: 7 };

beforeAll(async () => {
  platform = await startTestPlatform();
  notifier = await startNotifier(platform);
});
afterAll(async () => {
  await notifier?.stop();
  await platform?.close();
});
beforeEach(async () => {
  notifier.mail.control.reset();
  notifier.sms.control.reset();
  // Each test looks at its own services and invoices only.
  await platform.deps.db.sequelize.query(`UPDATE services SET status = 'cancelled', suspend_reason = NULL WHERE status IN ('active', 'suspended')`);
  await platform.deps.db.sequelize.query(`UPDATE invoices SET status = 'cancelled', cancelled_at = now() WHERE status = 'unpaid'`);
});

function mails() {
  return notifier.mail.control.messages();
}

function texts() {
  return notifier.sms.control.messages();
}

async function unpaidPurchase(userId: number, hoursAgo: number) {
  const { invoice } = await inTransaction(platform.deps, (tx) =>
    insertInvoice(
      platform.deps,
      {
        userId,
        type: 'purchase',
        status: 'unpaid',
        subject: '新购：香港云服务器',
        amount: '88.00',
        items: [{ key: 'base', description: '香港云服务器', unitAmount: '88.00', quantity: 1, amount: '88.00' }],
        audit: systemAudit('test'),
      },
      tx,
    ),
  );
  await platform.deps.db.sequelize.query(`UPDATE invoices SET created_at = now() - make_interval(hours => ${hoursAgo}) WHERE id = ${invoice.id}`);
  return invoice;
}

describe('renewal reminders', () => {
  it('picks the threshold the time left has reached', () => {
    const now = new Date('2026-03-01T02:00:00Z');
    const at = (days: number) => new Date(now.getTime() + days * 86_400_000);
    expect([8, 7, 6.5, 3.2, 3, 2.9, 0.5, 0, -1].map((d) => reminderThreshold([1, 3, 7], at(d), now))).toEqual([null, 7, 7, 7, 3, 3, 1, null, null]);
  });

  it('sends one mail and one SMS per threshold and due date, and nothing on a rerun', async () => {
    const user = await createUser(platform, { phone: '13900001111' });
    const id = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(6.5), productName: '到期提醒测试机', price: '45.00' });
    const first = await sendDueReminders(platform.deps, run);
    expect(first).toMatchObject({ mail_available: true, sms_available: true, renewal_due: { notices: 1, mail_sent: 1, sms_sent: 1 }, service_overdue: { notices: 0 } });
    expect(mails()).toHaveLength(1);
    expect(mails()[0]).toMatchObject({ to: [user.email], subject: '【主机转售平台】服务即将到期提醒' });
    expect(mails()[0]?.text).toContain(`到期提醒测试机」（服务编号 ${id}`);
    expect(mails()[0]?.text).toContain('约 7 天内');
    expect(mails()[0]?.text).toContain('续费价格 ¥45.00/月付');
    expect(texts()).toEqual([expect.objectContaining({ phone: '13900001111', template_code: 'SMS_RENEWAL', params: expect.objectContaining({ service_id: String(id), days: '7', amount: '45.00' }) })]);

    const again = await sendDueReminders(platform.deps, run);
    expect(again.renewal_due).toMatchObject({ notices: 1, mail_already: 1, sms_already: 1 });
    expect(mails()).toHaveLength(1);
    expect(texts()).toHaveLength(1);

    // Three days before: the next threshold, once.
    await platform.deps.db.models.Service.update({ next_due_at: daysFromNow(2.5) }, { where: { id } });
    const due = (await platform.deps.db.models.Service.findByPk(id))?.next_due_at;
    await sendDueReminders(platform.deps, run);
    await sendDueReminders(platform.deps, run);
    expect(mails()).toHaveLength(2);
    expect(mails()[1]?.text).toContain('约 3 天内');
    const logs = await platform.deps.db.models.NotificationLog.findAll({ where: { entity_id: id, kind: 'renewal_due' }, order: [['id', 'ASC']] });
    expect(logs.map((l) => [l.channel, l.status, l.occasion])).toEqual([
      ['mail', 'sent', expect.stringMatching(/:d7$/)],
      ['sms', 'sent', expect.stringMatching(/:d7$/)],
      ['mail', 'sent', `${due?.toISOString()}:d3`],
      ['sms', 'sent', `${due?.toISOString()}:d3`],
    ]);
    expect(logs[0]?.recipient).toMatch(/^ow\*\*\*@example\.com$/);
    expect(logs[1]?.recipient).toBe('139****1111');
    expect(logs[0]?.task_run_id).toBe(7);
  });

  it('names the open renewal invoice and warns an auto-renewing user whose balance is short', async () => {
    const user = await createUser(platform, { phone: null });
    const id = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(0.5), autoRenew: true });
    const invoice = await seedRenewInvoice(platform, { userId: user.id, serviceId: id, amount: '30.00' });
    const result = await sendDueReminders(platform.deps, run);
    expect(result.renewal_due).toMatchObject({ notices: 1, mail_sent: 1, sms_no_recipient: 1 });
    expect(texts()).toHaveLength(0);
    const text = mails()[0]?.text ?? '';
    expect(text).toContain('约 1 天内');
    expect(text).toContain(`续费账单 ${invoice.invoice_no} 金额 ¥30.00`);
    expect(text).toContain('您已开启自动续费，但当前账户余额 ¥0.00 不足以支付 ¥30.00，请及时充值');
  });

  it('sends an overdue notice once per due date, naming when the service will be suspended', async () => {
    const user = await createUser(platform);
    await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(-1) });
    const result = await sendDueReminders(platform.deps, run);
    expect(result.service_overdue).toMatchObject({ notices: 1, mail_sent: 1, sms_sent: 1 });
    expect(mails()[0]?.subject).toBe('【主机转售平台】服务已到期，请尽快续费');
    expect(mails()[0]?.text).toMatch(/若在 \d{4}-\d{2}-\d{2} \d{2}:\d{2} 前仍未续费，服务将被暂停/);
    expect(texts()[0]?.template_code).toBe('SMS_SERVICE_OVERDUE');
    await sendDueReminders(platform.deps, run);
    expect(mails()).toHaveLength(1);
  });
});

describe('unpaid invoice reminders', () => {
  it('reminds once, INVOICE_UNPAID_REMINDER_HOURS after creation; not earlier, not once cancellation is due', async () => {
    const user = await createUser(platform, { phone: '13900002222' });
    const due = await unpaidPurchase(user.id, 13);
    await unpaidPurchase(user.id, 2);
    await unpaidPurchase(user.id, 24 * 8);
    const first = await sendAccountNotices(platform.deps, run);
    expect(first['invoice_unpaid']).toMatchObject({ notices: 1, mail_sent: 1, sms_sent: 1 });
    expect(mails().map((m) => m.subject)).toEqual(['【主机转售平台】您有一张账单尚未支付']);
    expect(mails()[0]?.text).toContain(`您的账单 ${due.invoice_no}（新购：香港云服务器）金额 ¥88.00 尚未支付`);
    expect(texts()[0]).toMatchObject({ template_code: 'SMS_INVOICE_UNPAID', params: expect.objectContaining({ invoice_no: due.invoice_no, amount: '88.00' }) });
    await sendAccountNotices(platform.deps, run);
    expect(mails()).toHaveLength(1);
    expect(texts()).toHaveLength(1);
  });
});

describe('at most once', () => {
  it('never sends again a notice claimed before a crash, and marks the abandoned claim unknown after an hour', async () => {
    const user = await createUser(platform);
    const id = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(-1) });
    const service = await platform.deps.db.models.Service.findByPk(id);
    // What a run that crashed after handing the mail over leaves behind: the claim, never marked sent.
    await platform.deps.db.models.NotificationLog.create({
      kind: 'service_overdue',
      channel: 'mail',
      entity_type: 'service',
      entity_id: id,
      occasion: service?.next_due_at?.toISOString() ?? '',
      user_id: user.id,
      status: 'sending',
    });
    const result = await sendDueReminders(platform.deps, run);
    expect(result.service_overdue).toMatchObject({ mail_already: 1, sms_sent: 1 });
    expect(mails()).toHaveLength(0);

    await platform.deps.db.sequelize.query(`UPDATE notification_log SET updated_at = now() - interval '2 hours' WHERE entity_id = ${id} AND status = 'sending'`);
    expect(await sendAccountNotices(platform.deps, run)).toMatchObject({ abandoned_claims_closed: 1 });
    const log = await platform.deps.db.models.NotificationLog.findOne({ where: { entity_id: id, channel: 'mail' } });
    expect(log).toMatchObject({ status: 'unknown', error: '发送过程中断，结果未知，不再重发' });
    await sendDueReminders(platform.deps, run);
    expect(mails()).toHaveLength(0);
  });

  it('retries a notice the plugin answered as not sent on a later run, up to three attempts in all', async () => {
    const user = await createUser(platform, { phone: '13900003333' });
    const id = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(-1) });
    notifier.sms.control.setFailure('http_500', 1);
    const first = await sendDueReminders(platform.deps, run);
    expect(first.service_overdue).toMatchObject({ mail_sent: 1, sms_failed: 1 });
    const failed = await platform.deps.db.models.NotificationLog.findOne({ where: { entity_id: id, channel: 'sms' } });
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, sent_at: null });
    expect(failed?.error).toMatch(/\p{Script=Han}/u);
    const second = await sendDueReminders(platform.deps, run);
    expect(second.service_overdue).toMatchObject({ mail_already: 1, sms_sent: 1 });
    expect(await platform.deps.db.models.NotificationLog.findOne({ where: { entity_id: id, channel: 'sms' } })).toMatchObject({ status: 'sent', attempts: 2, error: null });
    expect(texts()).toHaveLength(1);

    notifier.sms.control.setFailure('http_500');
    const other = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(-2) });
    for (let i = 0; i < 4; i += 1) await sendDueReminders(platform.deps, run);
    expect(await platform.deps.db.models.NotificationLog.findOne({ where: { entity_id: other, channel: 'sms' } })).toMatchObject({ status: 'failed', attempts: 3 });
    notifier.sms.control.setFailure('none');
    await sendDueReminders(platform.deps, run);
    expect(await platform.deps.db.models.NotificationLog.findOne({ where: { entity_id: other, channel: 'sms' } })).toMatchObject({ status: 'failed', attempts: 3 });
  });
});

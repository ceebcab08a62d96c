import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDueReminders } from '../../../../domain/notifications/send-due-reminders.js';
import { expectError } from '../../../helpers/http.js';
import { createUser, daysFromNow, type Notifier, seedService, startNotifier } from '../../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let notifier: Notifier;

beforeAll(async () => {
  platform = await startTestPlatform();
  notifier = await startNotifier(platform);
  // Two renewal notices sent by mail and SMS, and one overdue notice whose SMS the gateway refuses.
  for (const phone of ['13900001111', '13900002222']) {
    const user = await createUser(platform, { phone });
    await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(6.5) });
  }
  await sendDueReminders(platform.deps, { taskRunId: 7 });
  notifier.sms.control.setFailure('http_500');
  const late = await createUser(platform, { phone: '13900003333' });
  await seedService(platform, { userId: late.id, nextDueAt: daysFromNow(-1) });
  await sendDueReminders(platform.deps, { taskRunId: 8 });
  notifier.sms.control.setFailure('none');
});
afterAll(async () => {
  await notifier?.stop();
  await platform?.close();
});

describe('GET /api/v2/admin/logs/notification-logs', () => {
  it('lists the notices with masked recipients, filtered, and refuses unknown filter values', async () => {
    const token = await platform.rootToken();
    const res = await platform.api.get('/api/v2/admin/logs/notification-logs', { token, query: { kind: 'renewal_due', channel: 'sms' } });
    expect(res.body.data.total).toBe(2);
    for (const item of res.body.data.list) {
      expect(item).toMatchObject({ kind: 'renewal_due', kind_label: '到期提醒', channel: 'sms', status: 'sent', status_label: '已发送' });
      expect(item.recipient).toMatch(/^\d{3}\*{4}\d{4}$/);
      expect(item.sent_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(item).not.toHaveProperty('text');
    }
    const failed = await platform.api.get('/api/v2/admin/logs/notification-logs', { token, query: { status: 'failed' } });
    expect(failed.body.data.list.map((i: { kind: string; channel: string; recipient: string }) => [i.kind, i.channel, i.recipient])).toEqual([
      ['service_overdue', 'sms', '139****3333'],
    ]);
    const bad = await platform.api.get('/api/v2/admin/logs/notification-logs', { token, query: { kind: 'spam', page_size: 500 } });
    expectError(bad, 42200, 422);
    expect(Object.keys(bad.body.data.errors).sort()).toEqual(['kind', 'page_size']);
  });
});

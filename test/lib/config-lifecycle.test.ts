import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config.js';

const BASE = { DATABASE_URL: 'postgres://x/y', TEMPORAL_ADDRESS: '127.0.0.1:7233', APP_SECRET_KEY: 'k'.repeat(40) };

describe('lifecycle settings', () => {
  it('default to a week of lead time, reminders at 7, 3 and 1 days, 3 days of grace and 7 before termination', () => {
    const config = loadConfig(BASE);
    expect(config.lifecycle).toEqual({ renewalLeadDays: 7, reminderDays: [1, 3, 7], unpaidReminderHours: 12, suspendAfterDays: 3, terminateAfterDays: 7, staleInvoiceDays: 7 });
    expect(config.retention.notificationLogDays).toBe(180);
  });

  it('read reminder days in any order, once each', () => {
    expect(loadConfig({ ...BASE, RENEWAL_REMINDER_DAYS: '3,14,3,1' }).lifecycle.reminderDays).toEqual([1, 3, 14]);
  });

  it('refuse bad values, naming the variable', () => {
    expect(() => loadConfig({ ...BASE, RENEWAL_REMINDER_DAYS: '7,0' })).toThrow(/RENEWAL_REMINDER_DAYS/);
    expect(() => loadConfig({ ...BASE, SUSPEND_AFTER_DAYS: '-1' })).toThrow(/SUSPEND_AFTER_DAYS/);
    expect(() => loadConfig({ ...BASE, NOTIFICATION_LOG_RETENTION_DAYS: '60', STALE_INVOICE_CANCEL_DAYS: '90' })).toThrow(ConfigError);
  });
});

import { describe, expect, it } from 'vitest';
import { describeConsole } from '../../../domain/services/capabilities.js';
import { generateHostPassword, HOST_PASSWORD_PATTERN } from '../../../domain/services/console/generate-password.js';
import { extendDueDate, renewalBase } from '../../../domain/services/renewals/renewal-rules.js';
import { normaliseProductType } from '../../../domain/services/service-labels.js';
import { formatDateTime, parseDateTime } from '../../../lib/time.js';

const FINANCE_PLUGIN = ['host_detail', 'host_action', 'console_ticket', 'host_renew', 'traffic_packages', 'traffic_package_buy', 'module_action', 'module_page'];

describe('service console capabilities', () => {
  it('are the type’s console capabilities the bound plugin can serve', () => {
    const view = describeConsole({ productType: 'cloud_server', status: 'active', hostId: 5001, pluginUsable: true, pluginCapabilities: FINANCE_PLUGIN });
    expect(view).toEqual({
      capabilities: ['runtime', 'power', 'vnc', 'reinstall', 'reset_password', 'traffic_packages'],
      actions: { power: true, module_status: true },
      read_only: false,
    });
    expect(describeConsole({ productType: 'cdn', status: 'active', hostId: 7, pluginUsable: true, pluginCapabilities: FINANCE_PLUGIN }).capabilities).toEqual(['runtime', 'traffic_packages']);
    expect(describeConsole({ productType: 'web_hosting', status: 'active', hostId: 7, pluginUsable: true, pluginCapabilities: FINANCE_PLUGIN }).actions.power).toBe(false);
    expect(describeConsole({ productType: 'other', status: 'active', hostId: 7, pluginUsable: true, pluginCapabilities: ['host_action'] }).capabilities).toEqual([
      'power',
      'reinstall',
      'reset_password',
    ]);
    // The console needs the plugin's console ticket (the relay authenticates upstream with it).
    expect(describeConsole({ productType: 'other', status: 'active', hostId: 7, pluginUsable: true, pluginCapabilities: ['host_action', 'console_ticket'] }).capabilities).toContain('vnc');
  });

  it('are empty (read-only console, every action false) without an upstream host or with the plugin gone', () => {
    const unbound = describeConsole({ productType: 'cloud_server', status: 'active', hostId: 0, pluginUsable: true, pluginCapabilities: FINANCE_PLUGIN });
    expect(unbound).toEqual({ capabilities: [], actions: { power: false, module_status: false }, read_only: true });
    expect(describeConsole({ productType: 'cloud_server', status: 'active', hostId: 9, pluginUsable: false, pluginCapabilities: FINANCE_PLUGIN }).read_only).toBe(true);
  });

  it('keep every action off while the service is not active', () => {
    const suspended = describeConsole({ productType: 'bare_metal', status: 'suspended', hostId: 9, pluginUsable: true, pluginCapabilities: FINANCE_PLUGIN });
    expect(suspended.capabilities).toContain('power');
    expect(suspended.actions).toEqual({ power: false, module_status: false });
  });
});

describe('legacy product types', () => {
  it('are normalised to the 8 fixed types, anything unknown to other', () => {
    expect(['cloud_server', 'vps', 'Cloud', 'dcim', 'dedicated', 'hosting', 'virtual-host', 'game', 'desktop', 'CDN', 'mystery', ''].map(normaliseProductType)).toEqual([
      'cloud_server',
      'cloud_server',
      'cloud_server',
      'bare_metal',
      'physical_machine',
      'web_hosting',
      'web_hosting',
      'game_cloud',
      'cloud_desktop',
      'cdn',
      'other',
      'other',
    ]);
  });
});

describe('renewal due dates', () => {
  const at = (text: string) => parseDateTime(text) as Date;

  it('move by calendar months in Asia/Shanghai, clamped to the month’s last day', () => {
    expect(formatDateTime(extendDueDate(at('2026-01-31 10:00:00'), 1))).toBe('2026-02-28 10:00:00');
    expect(formatDateTime(extendDueDate(at('2028-01-31 23:30:00'), 1))).toBe('2028-02-29 23:30:00');
    expect(formatDateTime(extendDueDate(at('2026-03-31 00:10:00'), 3))).toBe('2026-06-30 00:10:00');
    expect(formatDateTime(extendDueDate(at('2026-02-28 08:00:00'), 12))).toBe('2027-02-28 08:00:00');
  });

  it('extend from the current due date even when it has passed, and from now without one', () => {
    const now = at('2026-05-01 12:00:00');
    expect(renewalBase(at('2026-01-15 00:00:00'), now)).toEqual(at('2026-01-15 00:00:00'));
    expect(renewalBase(null, now)).toEqual(now);
  });
});

describe('generated host passwords', () => {
  it('are 16 letters and digits the upstream accepts', () => {
    for (let i = 0; i < 50; i += 1) {
      const password = generateHostPassword();
      expect(password).toMatch(/^[A-Za-z0-9]{16}$/);
      expect(HOST_PASSWORD_PATTERN.test(password)).toBe(true);
    }
  });
});

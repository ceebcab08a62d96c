import { SYSTEM_ACTOR } from '../../../lib/actor.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PluginExecuteInput, PluginManifest } from '../../../plugins/runtime/contract.js';
import { DailyReportListener, execute } from '../../../plugins/addons/daily_report/index.js';

const manifest = JSON.parse(readFileSync(new URL('../../../plugins/addons/daily_report/manifest.json', import.meta.url), 'utf8')) as PluginManifest;

function input(payload: Record<string, unknown>, config: Record<string, unknown> = {}, action = 'addons.daily_report.send'): PluginExecuteInput {
  return {
    domain: 'addons',
    slug: 'daily_report',
    key: 'daily_report',
    action,
    payload,
    config: { recipients: 'Ops@Example.com\nboss@example.com, ops@example.com', ...config },
    context: { traceId: 't', actor: SYSTEM_ACTOR, signal: AbortSignal.timeout(5000), urls: { publicBaseUrl: 'http://127.0.0.1:1' } },
  };
}

const FIGURES = {
  date: '2024-05-01',
  new_users: 5,
  total_users: 1200,
  paid_invoices: 3,
  paid_amount: '1234.5',
  unpaid_invoices: 1,
  unpaid_amount: '59.00',
  refund_amount: '0',
  new_services: 2,
  active_services: 310,
  expiring_services: 7,
  failed_provisions: 0,
};

describe('daily report addon', () => {
  it('declares its scheduled task and schedule hooks', () => {
    expect(manifest.info).toMatchObject({ domain: 'addons', slug: 'daily_report', key: 'daily_report', entry: 'index.js' });
    expect(manifest.info.extra?.scheduled_tasks).toEqual([
      expect.objectContaining({
        key: 'daily_report.send',
        category: 'report',
        triggers: [{ type: 'cron', expression: '0 9 * * *' }],
        handle: 'addons.daily_report.send',
        queue: 'automation',
        timeout: 120,
        lockTtlSeconds: 180,
        manualTriggerable: true,
      }),
    ]);
    expect(manifest.info.extra?.schedule_hooks).toEqual({ 'tick.daily': ['DailyReportListener'], 'task.failed': [['DailyReportListener', 'onTaskFailed']] });
    expect(manifest.config['recipients']).toMatchObject({ type: 'textarea', required: true });
    expect(manifest.config['include_sections']).toMatchObject({ type: 'multi_select' });
  });

  it('renders a Chinese mail with a summary array and deduplicated recipients', async () => {
    const result = await execute(input(FIGURES));
    expect(result.success).toBe(true);
    expect(result.message).toBe('已生成 2024-05-01 的每日运营报表');
    expect(result.data['subject']).toBe('每日运营报表 2024-05-01');
    expect(result.data['recipients']).toEqual(['ops@example.com', 'boss@example.com']);
    const summary = result.data['summary'] as { key: string; value: string }[];
    expect(summary).toHaveLength(11);
    expect(summary.find((s) => s.key === 'paid_amount')).toEqual({ section: 'invoices', key: 'paid_amount', label: '已收款金额', value: '¥1234.50' });
    const text = result.data['text'] as string;
    expect(text).toContain('【用户】\n新增用户：5\n用户总数：1200');
    expect(text).toContain('退款金额：¥0.00');
    expect(result.data['html']).toContain('<tr><td>7 天内到期服务</td><td>7</td></tr>');
  });

  it('includes only the chosen sections and marks missing figures', async () => {
    const result = await execute(input({ date: '2024-05-01', new_users: 1 }, { include_sections: ['users'] }));
    const summary = result.data['summary'] as { section: string; value: string }[];
    expect(summary.map((s) => s.section)).toEqual(['users', 'users']);
    expect(summary[1]?.value).toBe('暂无数据');
    expect(result.data['text']).not.toContain('【账单】');
  });

  it('refuses bad input with a Chinese message', async () => {
    expect((await execute(input({ ...FIGURES, date: '2024-02-30' }))).message).toBe('日报日期格式不正确，应为 YYYY-MM-DD');
    expect((await execute(input(FIGURES, { recipients: 'ops@example.com\nnot-an-email' }))).message).toBe('收件人邮箱格式不正确：not-an-email');
    expect((await execute(input(FIGURES, { recipients: '' }))).message).toBe('未配置日报收件人');
    const negative = await execute(input({ ...FIGURES, new_users: -1 }));
    expect(negative).toMatchObject({ success: false, message: '日报数据格式不正确：new_users', data: { error_kind: 'permanent' } });
    expect((await execute(input(FIGURES, {}, 'addons.daily_report.other'))).success).toBe(false);
  });

  it('the tick.daily listener asks for the previous day in Shanghai time', () => {
    const listener = new DailyReportListener();
    expect(listener.handle('tick.daily', { now: '2024-05-02T01:00:00Z' })).toEqual([
      { type: 'report.due', task_key: 'daily_report.send', date: '2024-05-01', idempotency_key: 'daily_report:2024-05-01', message: '2024-05-01 的每日运营报表已到发送时间' },
    ]);
    expect(listener.handle('tick.daily', { now: '2024-05-01T23:00:00Z' })[0]).toMatchObject({ date: '2024-05-01' });
    expect(listener.handle('tick.hourly', {})).toEqual([]);
  });

  it('the task.failed listener warns about its own task only and redacts secrets', () => {
    const listener = new DailyReportListener();
    expect(listener.onTaskFailed('task.failed', { task_key: 'other.task', exception: { message: 'boom' } })).toEqual([]);
    const [entry] = listener.onTaskFailed('task.failed', { task_key: 'daily_report.send', exception: { message: 'SMTP login failed password=hunter2' } });
    expect(entry).toMatchObject({ type: 'report.failed', level: 'warning', task_key: 'daily_report.send' });
    expect(entry?.['message']).toBe('每日运营报表发送失败：SMTP login failed password=***');
  });
});

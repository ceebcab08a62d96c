import type { PluginExecuteInput, PluginExecuteResult } from '../../runtime/contract.js';
import { ReportInputError } from './report-error.js';
import { parseRecipients } from './report-input.js';
import { sendDailyReport } from './send-report.js';
import { REPORT_ACTION } from './task.js';

export { DailyReportListener } from './listener.js';

/** The addon has no third party: healthy means its configuration can produce a report. */
function checkHealth(input: PluginExecuteInput): PluginExecuteResult {
  try {
    const recipients = parseRecipients(input.config['recipients']);
    return { success: true, action: input.action, message: '每日报表配置正常', data: { healthy: true, recipients: recipients.length } };
  } catch (err) {
    const message = err instanceof ReportInputError ? err.message : '每日报表配置无效';
    return { success: false, action: input.action, message, data: { healthy: false, error_kind: 'permanent', error_code: 'invalid_config' } };
  }
}

/** Entry of the daily report addon; free of I/O. */
export async function execute(input: PluginExecuteInput): Promise<PluginExecuteResult> {
  if (input.action === REPORT_ACTION) return sendDailyReport(input);
  if (input.action === 'health_check') return checkHealth(input);
  return { success: false, action: input.action, message: '每日报表插件不支持该操作', data: { error_kind: 'permanent', error_code: 'unsupported_action' } };
}

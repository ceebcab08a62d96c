import type { PluginExecuteInput, PluginExecuteResult } from '../../runtime/contract.js';
import { ReportInputError } from './report-error.js';
import { parseReportInput } from './report-input.js';
import { renderReport } from './report-render.js';

/**
 * Builds the report mail from figures the platform aggregated; the platform sends it through
 * the mail plugin. `data.summary` is the task's summary array.
 */
export function sendDailyReport(input: PluginExecuteInput): PluginExecuteResult {
  try {
    const report = parseReportInput(input.payload, input.config);
    const rendered = renderReport(report);
    return {
      success: true,
      action: input.action,
      message: `已生成 ${report.date} 的每日运营报表`,
      data: {
        date: report.date,
        summary: rendered.summary,
        subject: rendered.subject,
        text: rendered.text,
        html: rendered.html,
        recipients: report.recipients,
      },
    };
  } catch (err) {
    if (!(err instanceof ReportInputError)) throw err;
    return { success: false, action: input.action, message: err.message, data: { error_kind: 'permanent', error_code: 'invalid_input' } };
  }
}

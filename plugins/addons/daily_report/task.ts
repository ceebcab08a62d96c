export const REPORT_TASK_KEY = 'daily_report.send';
export const REPORT_ACTION = 'addons.daily_report.send';

import { formatMoney, parseMoney } from '../../../lib/money.js';
import { ReportInputError } from './report-error.js';
import { FIGURES, REPORT_SECTIONS, isReportSection, type ReportSection } from './sections.js';

export type ReportInput = {
  date: string;
  recipients: string[];
  sections: ReportSection[];
  /** Formatted figures; null when the platform did not provide one. */
  figures: Record<string, string | null>;
};

const EMAIL = /^[^\s@,;<>]+@[^\s@,;<>]+\.[^\s@,;<>]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function parseRecipients(value: unknown): string[] {
  const text = typeof value === 'string' ? value : '';
  const entries = text.split(/[\s,;，；]+/).map((e) => e.trim().toLowerCase()).filter((e) => e !== '');
  const invalid = entries.find((e) => !EMAIL.test(e));
  if (invalid !== undefined) throw new ReportInputError(`收件人邮箱格式不正确：${invalid}`);
  if (entries.length === 0) throw new ReportInputError('未配置日报收件人');
  return [...new Set(entries)];
}

export function parseSections(value: unknown): ReportSection[] {
  const chosen = Array.isArray(value) ? value.filter(isReportSection) : [];
  return chosen.length > 0 ? REPORT_SECTIONS.filter((s) => chosen.includes(s)) : [...REPORT_SECTIONS];
}

function parseFigure(key: string, kind: 'count' | 'money', value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (kind === 'money') {
    const amount = parseMoney(value);
    if (!amount || amount.isNegative()) throw new ReportInputError(`日报数据格式不正确：${key}`);
    return formatMoney(amount);
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new ReportInputError(`日报数据格式不正确：${key}`);
  return String(value);
}

function isCalendarDate(text: string): boolean {
  const date = new Date(`${text}T00:00:00Z`);
  return DATE.test(text) && !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

export function parseReportInput(payload: Record<string, unknown>, config: Record<string, unknown>): ReportInput {
  const date = typeof payload['date'] === 'string' ? payload['date'] : '';
  if (!isCalendarDate(date)) throw new ReportInputError('日报日期格式不正确，应为 YYYY-MM-DD');
  const sections = parseSections(config['include_sections']);
  const figures: Record<string, string | null> = {};
  for (const figure of FIGURES) {
    if (sections.includes(figure.section)) figures[figure.key] = parseFigure(figure.key, figure.kind, payload[figure.key]);
  }
  return { date, recipients: parseRecipients(config['recipients']), sections, figures };
}

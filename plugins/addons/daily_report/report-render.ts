import type { ReportInput } from './report-input.js';
import { FIGURES, SECTION_TITLES, type ReportSection } from './sections.js';

export type SummaryItem = { section: ReportSection; key: string; label: string; value: string };

export type RenderedReport = { subject: string; text: string; html: string; summary: SummaryItem[] };

const MISSING = '暂无数据';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

export function buildSummary(input: ReportInput): SummaryItem[] {
  return FIGURES.filter((f) => input.sections.includes(f.section)).map((f) => {
    const value = input.figures[f.key] ?? null;
    return { section: f.section, key: f.key, label: f.label, value: value === null ? MISSING : f.kind === 'money' ? `¥${value}` : value };
  });
}

/** Plain-text and HTML bodies of the report mail (Chinese); no I/O here. */
export function renderReport(input: ReportInput): RenderedReport {
  const summary = buildSummary(input);
  const subject = `每日运营报表 ${input.date}`;
  const textLines = [`${input.date} 运营数据汇总`, ''];
  const htmlParts = [`<h2>${escapeHtml(input.date)} 运营数据汇总</h2>`];
  for (const section of input.sections) {
    const items = summary.filter((item) => item.section === section);
    textLines.push(`【${SECTION_TITLES[section]}】`, ...items.map((item) => `${item.label}：${item.value}`), '');
    const rows = items.map((item) => `<tr><td>${escapeHtml(item.label)}</td><td>${escapeHtml(item.value)}</td></tr>`).join('');
    htmlParts.push(`<h3>${SECTION_TITLES[section]}</h3><table border="1" cellpadding="4" cellspacing="0">${rows}</table>`);
  }
  textLines.push('本邮件由系统自动发送，请勿直接回复。');
  htmlParts.push('<p>本邮件由系统自动发送，请勿直接回复。</p>');
  return { subject, text: textLines.join('\n'), html: htmlParts.join('\n'), summary };
}

export const REPORT_SECTIONS = ['users', 'invoices', 'services'] as const;
export type ReportSection = (typeof REPORT_SECTIONS)[number];

export type FigureKind = 'count' | 'money';

export type FigureDefinition = { key: string; section: ReportSection; label: string; kind: FigureKind };

export const SECTION_TITLES: Record<ReportSection, string> = { users: '用户', invoices: '账单', services: '服务' };

/** The pre-aggregated figures the platform passes in the payload, in display order. */
export const FIGURES: FigureDefinition[] = [
  { key: 'new_users', section: 'users', label: '新增用户', kind: 'count' },
  { key: 'total_users', section: 'users', label: '用户总数', kind: 'count' },
  { key: 'paid_invoices', section: 'invoices', label: '已支付账单数', kind: 'count' },
  { key: 'paid_amount', section: 'invoices', label: '已收款金额', kind: 'money' },
  { key: 'unpaid_invoices', section: 'invoices', label: '未支付账单数', kind: 'count' },
  { key: 'unpaid_amount', section: 'invoices', label: '未支付金额', kind: 'money' },
  { key: 'refund_amount', section: 'invoices', label: '退款金额', kind: 'money' },
  { key: 'new_services', section: 'services', label: '新开通服务', kind: 'count' },
  { key: 'active_services', section: 'services', label: '运行中服务', kind: 'count' },
  { key: 'expiring_services', section: 'services', label: '7 天内到期服务', kind: 'count' },
  { key: 'failed_provisions', section: 'services', label: '开通失败', kind: 'count' },
];

export function isReportSection(value: unknown): value is ReportSection {
  return REPORT_SECTIONS.some((section) => section === value);
}

import { formatMoney, money } from '../../lib/money.js';
import { formatDateTime } from '../../lib/time.js';
import { billingPeriodLabel, isBillingPeriod } from '../catalogue/billing-periods.js';
import type { Notice, Recipient } from './notice.js';

/** What the texts say about a service; no credentials, no upstream data. */
export type NoticeService = {
  id: number;
  product_name: string;
  hostname: string;
  ip: string;
  billing_period: string;
  price: string;
  auto_renew: boolean;
  next_due_at: Date;
};

export type NoticeInvoice = { id: number; invoice_no: string; subject: string; amount: string; type: string };

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD HH:mm` in Asia/Shanghai: minutes are as precise as a reminder needs. */
function when(date: Date): string {
  return (formatDateTime(date) ?? '').slice(0, 16);
}

function day(date: Date): string {
  return (formatDateTime(date) ?? '').slice(0, 10);
}

function serviceName(service: NoticeService): string {
  const name = service.product_name || '云服务';
  const where = service.hostname || service.ip;
  return `「${name}」（服务编号 ${service.id}${where ? `，${where}` : ''}）`;
}

function periodLabel(period: string): string {
  return isBillingPeriod(period) ? billingPeriodLabel(period) : period;
}

function mail(siteName: string, lines: string[]): string {
  return ['您好：', '', ...lines, '', '如已处理，请忽略本邮件。此邮件由系统自动发送，请勿直接回复。', `${siteName}`].join('\n');
}

function serviceParams(service: NoticeService): Record<string, string> {
  return { product: service.product_name.slice(0, 30) || '云服务', service_id: String(service.id), due_date: day(service.next_due_at) };
}

/** Renewal due in `days` days (the threshold reached); names the open renewal invoice or the price, and the auto-renew state. */
export function renewalDueNotice(
  siteName: string,
  input: { service: NoticeService; user: Recipient; days: number; invoice: NoticeInvoice | null; balance: string },
): Notice {
  const { service, invoice } = input;
  const amount = invoice ? invoice.amount : service.price;
  const lines = [`您的服务${serviceName(service)}将于 ${when(service.next_due_at)} 到期（约 ${input.days} 天内）。`];
  lines.push(
    invoice
      ? `续费账单 ${invoice.invoice_no} 金额 ¥${invoice.amount}，请登录用户中心完成支付。`
      : `续费价格 ¥${service.price}/${periodLabel(service.billing_period)}，续费账单将在到期前自动生成，您也可以登录用户中心提前续费。`,
  );
  if (service.auto_renew) {
    lines.push(
      money(input.balance).gte(amount)
        ? '您已开启自动续费，系统将在到期前从账户余额自动扣款续费。'
        : `您已开启自动续费，但当前账户余额 ¥${formatMoney(input.balance)} 不足以支付 ¥${amount}，请及时充值，以免服务到期后被暂停。`,
    );
  } else {
    lines.push('逾期未续费的服务将被暂停，暂停后仍未续费将被终止并释放，数据无法恢复。');
  }
  return {
    kind: 'renewal_due',
    entityType: 'service',
    entityId: service.id,
    occasion: `${service.next_due_at.toISOString()}:d${input.days}`,
    user: input.user,
    subject: `【${siteName}】服务即将到期提醒`,
    text: mail(siteName, lines),
    sms: { scene: 'renewal_reminder', params: { ...serviceParams(service), days: String(input.days), amount } },
  };
}

/** Past its due date, not renewed: when it will be suspended. */
export function serviceOverdueNotice(siteName: string, input: { service: NoticeService; user: Recipient; suspendAt: Date }): Notice {
  const { service } = input;
  return {
    kind: 'service_overdue',
    entityType: 'service',
    entityId: service.id,
    occasion: service.next_due_at.toISOString(),
    user: input.user,
    subject: `【${siteName}】服务已到期，请尽快续费`,
    text: mail(siteName, [
      `您的服务${serviceName(service)}已于 ${when(service.next_due_at)} 到期，目前尚未续费。`,
      `若在 ${when(input.suspendAt)} 前仍未续费，服务将被暂停。请登录用户中心续费。`,
    ]),
    sms: { scene: 'service_overdue', params: { ...serviceParams(service), suspend_date: day(input.suspendAt) } },
  };
}

/** Suspended for non-payment: renewal lifts it; when it will be terminated. */
export function serviceSuspendedNotice(
  siteName: string,
  input: { service: NoticeService; user: Recipient; suspendedAt: Date; terminateAt: Date },
): Notice {
  const { service } = input;
  return {
    kind: 'service_suspended',
    entityType: 'service',
    entityId: service.id,
    occasion: input.suspendedAt.toISOString(),
    user: input.user,
    subject: `【${siteName}】服务已暂停`,
    text: mail(siteName, [
      `您的服务${serviceName(service)}已于 ${when(service.next_due_at)} 到期且未续费，已于 ${when(input.suspendedAt)} 暂停。`,
      '续费成功后服务将自动恢复。',
      `若在 ${when(input.terminateAt)} 前仍未续费，服务将被终止并释放，数据无法恢复。`,
    ]),
    sms: { scene: 'service_suspended', params: { ...serviceParams(service), terminate_date: day(input.terminateAt) } },
  };
}

/** Terminated after its grace period. */
export function serviceTerminatedNotice(siteName: string, input: { service: NoticeService; user: Recipient; terminatedAt: Date }): Notice {
  const { service } = input;
  return {
    kind: 'service_terminated',
    entityType: 'service',
    entityId: service.id,
    occasion: 'terminated',
    user: input.user,
    subject: `【${siteName}】服务已终止`,
    text: mail(siteName, [
      `您的服务${serviceName(service)}因逾期未续费，已于 ${when(input.terminatedAt)} 终止，资源已释放。`,
      '如需继续使用，请重新购买。',
    ]),
    sms: { scene: 'service_terminated', params: serviceParams(service) },
  };
}

/** An unpaid purchase or traffic-package invoice, once; when it will be cancelled. */
export function invoiceUnpaidNotice(siteName: string, input: { invoice: NoticeInvoice; user: Recipient; cancelAt: Date }): Notice {
  const { invoice } = input;
  return {
    kind: 'invoice_unpaid',
    entityType: 'invoice',
    entityId: invoice.id,
    occasion: 'unpaid',
    user: input.user,
    subject: `【${siteName}】您有一张账单尚未支付`,
    text: mail(siteName, [
      `您的账单 ${invoice.invoice_no}（${invoice.subject}）金额 ¥${invoice.amount} 尚未支付。`,
      `请登录用户中心完成支付；未支付的账单将于 ${when(input.cancelAt)} 自动取消。`,
    ]),
    sms: { scene: 'invoice_unpaid', params: { invoice_no: invoice.invoice_no, amount: invoice.amount, cancel_date: day(input.cancelAt) } },
  };
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}

import type { SandboxTrade } from './types.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const STATUS_LABELS: Record<SandboxTrade['status'], string> = {
  PRECREATED: '待扫码',
  WAIT_BUYER_PAY: '等待付款',
  TRADE_SUCCESS: '支付成功',
  TRADE_FINISHED: '交易完结',
  TRADE_CLOSED: '交易已关闭',
};

export function htmlPage(title: string, body: string): string {
  return `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`;
}

/** What the buyer sees after scanning: the amount and a pay button. */
export function scanPage(trade: SandboxTrade): string {
  const payable = trade.status === 'WAIT_BUYER_PAY';
  const action = `/scan/${encodeURIComponent(trade.outTradeNo)}/pay`;
  return htmlPage(
    '扫码支付（沙箱）',
    `<h1>扫码支付（沙箱）</h1>` +
      `<p>商品：<span id="subject">${escapeHtml(trade.subject)}</span></p>` +
      `<p>金额：¥<span id="amount">${escapeHtml(trade.totalAmount)}</span></p>` +
      `<p>状态：<span id="status">${escapeHtml(STATUS_LABELS[trade.status])}</span></p>` +
      (payable ? `<form method="post" action="${escapeHtml(action)}"><button type="submit">确认付款</button></form>` : ''),
  );
}

export function messagePage(title: string, message: string): string {
  return htmlPage(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}

export const SERVER_ERROR_HTML = '<html><head><title>500 Internal Server Error</title></head><body><h1>500 Internal Server Error</h1><p>The gateway encountered an internal error.</p></body></html>';

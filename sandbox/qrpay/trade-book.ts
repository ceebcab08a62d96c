import { randomInt } from 'node:crypto';
import { formatMoney, money, parseMoney } from '../../lib/money.js';
import { formatDateTime } from '../../lib/time.js';
import type { GatewayAnswer, PayOutcome, SandboxTrade, TradeSnapshot } from './types.js';

const SUCCESS: GatewayAnswer = { code: '10000', msg: 'Success' };
const AMOUNT = /^\d{1,10}(\.\d{1,2})?$/;
const MAX_AMOUNT = money('100000000');

export function businessFailure(subCode: string, subMsg: string): GatewayAnswer {
  return { code: '40004', msg: 'Business Failed', sub_code: subCode, sub_msg: subMsg };
}

function now(): string {
  return formatDateTime(new Date()) ?? '';
}

/** Reads a biz_content member as a string (numbers are accepted for amounts, as gateways do). */
function field(biz: Record<string, unknown>, key: string): string {
  const value = biz[key];
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

function validAmount(text: string): string | null {
  if (!AMOUNT.test(text)) return null;
  const value = parseMoney(text);
  if (!value || value.lte(0) || value.gt(MAX_AMOUNT)) return null;
  return formatMoney(value);
}

/**
 * The sandbox gateway's trades and their state machine. Like the real gateway, a precreated
 * trade does not exist for `query` until the buyer scans its QR code.
 */
export class TradeBook {
  private readonly trades = new Map<string, SandboxTrade>();
  private tradeCounter = 0;

  constructor(private readonly baseUrl: string) {}

  get(outTradeNo: string): SandboxTrade | undefined {
    return this.trades.get(outTradeNo);
  }

  snapshot(outTradeNo: string): TradeSnapshot | null {
    const trade = this.trades.get(outTradeNo);
    if (!trade) return null;
    return { ...trade, refunds: [...trade.refunds.values()].map((r) => ({ ...r })) };
  }

  precreate(biz: Record<string, unknown>, notifyUrl: string | null): GatewayAnswer {
    const outTradeNo = field(biz, 'out_trade_no');
    const subject = field(biz, 'subject');
    const totalAmount = validAmount(field(biz, 'total_amount'));
    if (outTradeNo.length === 0 || outTradeNo.length > 64) return businessFailure('ACQ.INVALID_PARAMETER', 'invalid out_trade_no');
    if (!totalAmount) return businessFailure('ACQ.INVALID_PARAMETER', 'invalid total_amount');
    if (subject.length === 0 || subject.length > 256) return businessFailure('ACQ.INVALID_PARAMETER', 'invalid subject');

    const existing = this.trades.get(outTradeNo);
    if (existing) {
      if (existing.status === 'TRADE_SUCCESS' || existing.status === 'TRADE_FINISHED') {
        return businessFailure('ACQ.TRADE_HAS_SUCCESS', 'trade has been paid');
      }
      if (existing.status === 'TRADE_CLOSED') return businessFailure('ACQ.TRADE_HAS_CLOSE', 'trade has been closed');
      if (existing.totalAmount !== totalAmount || existing.subject !== subject) {
        return businessFailure('ACQ.CONTEXT_INCONSISTENT', 'trade info inconsistent with the first request');
      }
      if (notifyUrl) existing.notifyUrl = notifyUrl;
      return { ...SUCCESS, out_trade_no: outTradeNo, qr_code: existing.qrCode };
    }

    const trade: SandboxTrade = {
      outTradeNo,
      tradeNo: null,
      subject,
      totalAmount,
      buyerPayAmount: '0.00',
      refundFee: '0.00',
      notifyUrl,
      qrCode: `${this.baseUrl}/scan/${encodeURIComponent(outTradeNo)}`,
      status: 'PRECREATED',
      gmtCreate: now(),
      gmtPayment: null,
      refunds: new Map(),
    };
    this.trades.set(outTradeNo, trade);
    return { ...SUCCESS, out_trade_no: outTradeNo, qr_code: trade.qrCode };
  }

  /** The buyer opened the QR code: the trade now exists and waits for payment. */
  scan(outTradeNo: string): SandboxTrade | undefined {
    const trade = this.trades.get(outTradeNo);
    if (trade && trade.status === 'PRECREATED') {
      trade.status = 'WAIT_BUYER_PAY';
      trade.tradeNo = this.nextTradeNo();
    }
    return trade;
  }

  pay(outTradeNo: string): PayOutcome {
    const trade = this.scan(outTradeNo);
    if (!trade) return { ok: false, reason: 'not_found' };
    if (trade.status === 'TRADE_CLOSED') return { ok: false, reason: 'closed' };
    if (trade.status !== 'WAIT_BUYER_PAY') return { ok: false, reason: 'already_paid' };
    trade.status = 'TRADE_SUCCESS';
    trade.buyerPayAmount = trade.totalAmount;
    trade.gmtPayment = now();
    return { ok: true, outTradeNo, tradeNo: trade.tradeNo ?? '', totalAmount: trade.totalAmount, gmtPayment: trade.gmtPayment };
  }

  query(biz: Record<string, unknown>): GatewayAnswer {
    const outTradeNo = field(biz, 'out_trade_no');
    if (outTradeNo.length === 0) return businessFailure('ACQ.INVALID_PARAMETER', 'out_trade_no is required');
    const trade = this.trades.get(outTradeNo);
    if (!trade || trade.status === 'PRECREATED' || !trade.tradeNo) return businessFailure('ACQ.TRADE_NOT_EXIST', 'trade does not exist');
    const answer: GatewayAnswer = {
      ...SUCCESS,
      out_trade_no: trade.outTradeNo,
      trade_no: trade.tradeNo,
      trade_status: trade.status,
      total_amount: trade.totalAmount,
      buyer_pay_amount: trade.buyerPayAmount,
      receipt_amount: trade.buyerPayAmount,
    };
    if (trade.gmtPayment) answer.send_pay_date = trade.gmtPayment;
    return answer;
  }

  refund(biz: Record<string, unknown>): { answer: GatewayAnswer; executed: boolean } {
    const outTradeNo = field(biz, 'out_trade_no');
    const outRequestNo = field(biz, 'out_request_no') || outTradeNo;
    const refundAmount = validAmount(field(biz, 'refund_amount'));
    if (outTradeNo.length === 0 || outRequestNo.length > 64) {
      return { answer: businessFailure('ACQ.INVALID_PARAMETER', 'invalid out_trade_no or out_request_no'), executed: false };
    }
    if (!refundAmount) return { answer: businessFailure('ACQ.INVALID_PARAMETER', 'invalid refund_amount'), executed: false };
    const trade = this.trades.get(outTradeNo);
    if (!trade || !trade.tradeNo) return { answer: businessFailure('ACQ.TRADE_NOT_EXIST', 'trade does not exist'), executed: false };

    const previous = trade.refunds.get(outRequestNo);
    if (previous) {
      if (previous.refundAmount !== refundAmount) {
        return { answer: businessFailure('ACQ.DISCORDANT_REPEAT_REQUEST', 'out_request_no reused with different parameters'), executed: false };
      }
      return { answer: this.refundAnswer(trade, previous.refundAmount, outRequestNo, 'N'), executed: false };
    }

    const refundable = trade.status === 'TRADE_SUCCESS' || (trade.status === 'TRADE_CLOSED' && money(trade.refundFee).gt(0));
    if (!refundable) return { answer: businessFailure('ACQ.TRADE_STATUS_ERROR', 'trade status does not allow refund'), executed: false };
    const remaining = money(trade.buyerPayAmount).minus(trade.refundFee);
    if (money(refundAmount).gt(remaining)) {
      return { answer: businessFailure('ACQ.REFUND_AMT_NOT_EQUAL_TOTAL', 'refund amount exceeds the refundable amount'), executed: false };
    }

    trade.refundFee = formatMoney(money(trade.refundFee).plus(refundAmount));
    // Like the real gateway, a fully refunded trade is closed.
    if (money(trade.refundFee).eq(trade.buyerPayAmount)) trade.status = 'TRADE_CLOSED';
    trade.refunds.set(outRequestNo, { outRequestNo, refundAmount, refundFee: trade.refundFee, gmtRefundPay: now() });
    return { answer: this.refundAnswer(trade, refundAmount, outRequestNo, 'Y'), executed: true };
  }

  close(biz: Record<string, unknown>): GatewayAnswer {
    const outTradeNo = field(biz, 'out_trade_no');
    if (outTradeNo.length === 0) return businessFailure('ACQ.INVALID_PARAMETER', 'out_trade_no is required');
    const trade = this.trades.get(outTradeNo);
    if (!trade) return businessFailure('ACQ.TRADE_NOT_EXIST', 'trade does not exist');
    if (trade.status === 'TRADE_SUCCESS' || trade.status === 'TRADE_FINISHED') {
      return businessFailure('ACQ.TRADE_STATUS_ERROR', 'trade status does not allow close');
    }
    if (trade.status === 'TRADE_CLOSED' && money(trade.refundFee).gt(0)) {
      return businessFailure('ACQ.TRADE_STATUS_ERROR', 'trade status does not allow close');
    }
    // An unscanned trade is closed too, so that a late scan cannot pay it.
    if (!trade.tradeNo) trade.tradeNo = this.nextTradeNo();
    trade.status = 'TRADE_CLOSED';
    return { ...SUCCESS, out_trade_no: outTradeNo, trade_no: trade.tradeNo };
  }

  private refundAnswer(trade: SandboxTrade, refundAmount: string, outRequestNo: string, fundChange: 'Y' | 'N'): GatewayAnswer {
    return {
      ...SUCCESS,
      out_trade_no: trade.outTradeNo,
      trade_no: trade.tradeNo ?? '',
      out_request_no: outRequestNo,
      refund_amount: refundAmount,
      refund_fee: trade.refundFee,
      fund_change: fundChange,
      gmt_refund_pay: trade.refunds.get(outRequestNo)?.gmtRefundPay ?? now(),
    };
  }

  private nextTradeNo(): string {
    this.tradeCounter += 1;
    const day = now().slice(0, 10).replace(/-/g, '');
    return `${day}22${String(this.tradeCounter).padStart(6, '0')}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;
  }
}

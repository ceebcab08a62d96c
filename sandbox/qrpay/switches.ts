import type { FailNextOptions, FailureMode, QrpayMethod, QrpayStats } from './types.js';

export type PendingFailure = {
  mode: FailureMode;
  code: string;
  subCode: string;
  msg: string;
  subMsg: string;
};

function emptyStats(): QrpayStats {
  return {
    calls: {},
    notifications: { sent: 0, acknowledged: 0, forged: 0, tampered: 0, refused_urls: 0, by_out_trade_no: {} },
    refunds: { executed_by_out_request_no: {}, requests_by_out_request_no: {} },
    failures_injected: 0,
    answers_tampered: 0,
  };
}

function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

/** The test switches and counters of the sandbox gateway. */
export class SandboxSwitches {
  private failures = new Map<QrpayMethod, PendingFailure[]>();
  private tampers = new Map<QrpayMethod, number>();
  private delays = new Map<QrpayMethod | '*', number>();
  notificationCopies = 1;
  stats: QrpayStats = emptyStats();

  failNext(method: QrpayMethod, count: number, options: FailNextOptions = {}): void {
    const failure: PendingFailure = {
      mode: options.mode ?? 'business',
      code: options.code ?? '40004',
      subCode: options.subCode ?? 'ACQ.SYSTEM_ERROR',
      msg: options.msg ?? 'Business Failed',
      subMsg: options.subMsg ?? 'system error, please retry later',
    };
    const queue = this.failures.get(method) ?? [];
    for (let i = 0; i < Math.max(0, Math.floor(count)); i++) queue.push(failure);
    this.failures.set(method, queue);
  }

  takeFailure(method: QrpayMethod): PendingFailure | undefined {
    const failure = this.failures.get(method)?.shift();
    if (failure) this.stats.failures_injected += 1;
    return failure;
  }

  setDelay(ms: number, method?: QrpayMethod): void {
    const key = method ?? '*';
    if (ms > 0) this.delays.set(key, Math.floor(ms));
    else this.delays.delete(key);
  }

  delayFor(method: string): number {
    const specific = this.delays.get(method as QrpayMethod);
    return specific ?? this.delays.get('*') ?? 0;
  }

  tamperNextAnswers(method: QrpayMethod, count: number): void {
    this.tampers.set(method, (this.tampers.get(method) ?? 0) + Math.max(0, Math.floor(count)));
  }

  takeTamper(method: QrpayMethod): boolean {
    const left = this.tampers.get(method) ?? 0;
    if (left <= 0) return false;
    this.tampers.set(method, left - 1);
    this.stats.answers_tampered += 1;
    return true;
  }

  countCall(method: string): void {
    bump(this.stats.calls, method);
  }

  countNotification(outTradeNo: string, acknowledged: boolean): void {
    const n = this.stats.notifications;
    n.sent += 1;
    if (acknowledged) n.acknowledged += 1;
    const entry = (n.by_out_trade_no[outTradeNo] ??= { sent: 0, acknowledged: 0 });
    entry.sent += 1;
    if (acknowledged) entry.acknowledged += 1;
  }

  countRefund(outRequestNo: string, executed: boolean): void {
    bump(this.stats.refunds.requests_by_out_request_no, outRequestNo);
    if (executed) bump(this.stats.refunds.executed_by_out_request_no, outRequestNo);
    else this.stats.refunds.executed_by_out_request_no[outRequestNo] ??= 0;
  }

  reset(): void {
    this.failures = new Map();
    this.tampers = new Map();
    this.delays = new Map();
    this.notificationCopies = 1;
    this.stats = emptyStats();
  }

  snapshot(): QrpayStats {
    return structuredClone(this.stats);
  }
}

import type { PluginExecuteResult } from '../../runtime/contract.js';

export type Failure = {
  message: string;
  /** Stable machine code for the caller (e.g. `trade_not_exist`, `gateway_timeout`). */
  errorCode: string;
  /** Whether repeating the same call later may succeed. */
  retryable: boolean;
  diagnostics?: Record<string, unknown>;
};

export function succeed(action: string, message: string, data: Record<string, unknown>, diagnostics?: Record<string, unknown>): PluginExecuteResult {
  return diagnostics ? { success: true, action, message, data, diagnostics } : { success: true, action, message, data };
}

/** A failure: `data` holds only the machine code and the retry hint (plus `extra` normalised facts). */
export function fail(action: string, failure: Failure, extra: Record<string, unknown> = {}): PluginExecuteResult {
  const result: PluginExecuteResult = {
    success: false,
    action,
    message: failure.message,
    data: { ...extra, error_code: failure.errorCode, retryable: failure.retryable },
  };
  if (failure.diagnostics) result.diagnostics = failure.diagnostics;
  return result;
}

export function invalidPayload(action: string, message: string): PluginExecuteResult {
  return fail(action, { message, errorCode: 'invalid_payload', retryable: false });
}

/** Prefixes a failure's message with what was being done, e.g. `退款失败：…`. */
export function prefixed(prefix: string, failure: Failure): Failure {
  return { ...failure, message: `${prefix}：${failure.message}` };
}

import type { PluginExecuteResult } from '../../runtime/contract.js';
import { UpstreamError } from './client/upstream-error.js';

export function succeed(action: string, message: string, data: Record<string, unknown>, diagnostics?: Record<string, unknown>): PluginExecuteResult {
  return diagnostics ? { success: true, action, message, data, diagnostics } : { success: true, action, message, data };
}

/** A failure: Chinese message, `data.error_kind` (transient | permanent | ambiguous) and `data.error_code`; raw upstream text only in diagnostics. */
export function fail(action: string, err: unknown, diagnostics: Record<string, unknown> = {}): PluginExecuteResult {
  if (err instanceof UpstreamError) {
    const data: Record<string, unknown> = { error_kind: err.kind, error_code: err.reason };
    if (err.upstreamStatus !== undefined) data['upstream_status'] = err.upstreamStatus;
    return {
      success: false,
      action,
      message: err.message,
      data,
      diagnostics: {
        ...diagnostics,
        http_status: err.httpStatus ?? null,
        upstream_status: err.upstreamStatus ?? null,
        upstream_message: err.upstreamMessage ?? null,
        body_snippet: err.bodySnippet ?? null,
      },
    };
  }
  return {
    success: false,
    action,
    message: '上游插件内部错误',
    data: { error_kind: 'permanent', error_code: 'internal' },
    diagnostics: { ...diagnostics, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) },
  };
}

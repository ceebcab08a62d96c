import type { PluginExecuteResult } from '../../runtime/contract.js';

export function ok(action: string, message: string, data: Record<string, unknown>, diagnostics?: Record<string, unknown>): PluginExecuteResult {
  return diagnostics ? { success: true, action, message, data, diagnostics } : { success: true, action, message, data };
}

export function fail(action: string, message: string, diagnostics?: Record<string, unknown>, data: Record<string, unknown> = {}): PluginExecuteResult {
  return diagnostics ? { success: false, action, message, data, diagnostics } : { success: false, action, message, data };
}

import type { PluginExecuteInput, PluginExecuteResult } from '../../../plugins/runtime/contract.js';
import { execute } from '../../../plugins/upstream/upstream_finance/index.js';
import { DEFAULT_SANDBOX_ACCOUNT } from '../../../sandbox/upstream-finance/state.js';
import type { UpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/types.js';

export type FinanceCallOptions = {
  payload?: Record<string, unknown>;
  config?: Record<string, unknown>;
  signal?: AbortSignal;
};

export function financeConfig(sandbox: UpstreamFinanceSandbox): Record<string, unknown> {
  return { base_url: sandbox.baseUrl, account: DEFAULT_SANDBOX_ACCOUNT.username, api_key: DEFAULT_SANDBOX_ACCOUNT.apiKey, timeout_ms: 5000 };
}

export function financeInput(sandbox: UpstreamFinanceSandbox, action: string, options: FinanceCallOptions = {}): PluginExecuteInput {
  return {
    domain: 'upstream',
    slug: 'upstream_finance',
    key: 'upstream_finance',
    action,
    payload: { supplier_id: 1, ...options.payload },
    config: { ...financeConfig(sandbox), ...options.config },
    context: {
      traceId: `trace-${action}`,
      actor: { type: 'system', id: null },
      signal: options.signal ?? AbortSignal.timeout(5000),
      urls: { publicBaseUrl: 'http://127.0.0.1:1' },
    },
  };
}

/** Runs one plugin action against the sandbox, exactly as the runtime would call the entry. */
export function runFinance(sandbox: UpstreamFinanceSandbox, action: string, options: FinanceCallOptions = {}): Promise<PluginExecuteResult> {
  return execute(financeInput(sandbox, action, options));
}

/** Narrows a `data` member for assertions. */
export function field<T>(data: Record<string, unknown>, key: string): T {
  return data[key] as T;
}

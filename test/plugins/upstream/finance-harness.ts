import { SYSTEM_ACTOR } from '../../../lib/actor.js';
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../plugins/runtime/contract.js';
import { execute } from '../../../plugins/upstream/upstream_finance/index.js';
import { DEFAULT_SANDBOX_ACCOUNT } from '../../../sandbox/upstream-finance/state.js';
import type { UpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/types.js';
import { MAX_DEPTH_UNDER_DATA, depthUnder } from '../../helpers/limits.js';

export type FinanceCallOptions = {
  payload?: Record<string, unknown>;
  config?: Record<string, unknown>;
  signal?: AbortSignal;
};

const HAN = /\p{Script=Han}/u;
const ERROR_KINDS = ['transient', 'permanent', 'ambiguous'];
/** The catalogue feeds the product import (never an HTTP answer as is): deeper by nature. */
const DEEP_ACTIONS = new Set(['upstream.catalogue', 'upstream.product_config']);

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
      actor: SYSTEM_ACTOR,
      signal: options.signal ?? AbortSignal.timeout(5000),
      urls: { publicBaseUrl: 'http://127.0.0.1:1' },
    },
  };
}

/** The action contract every answer keeps: Chinese message, classified failures, shallow data, no JWT. */
function expectContract(action: string, result: PluginExecuteResult): void {
  expect(result.message, 'Chinese message').toMatch(HAN);
  if (!DEEP_ACTIONS.has(action)) expect(depthUnder(result.data), 'nesting depth under data').toBeLessThanOrEqual(MAX_DEPTH_UNDER_DATA);
  expect(JSON.stringify(result.data)).not.toMatch(/eyJ[\w-]+\.eyJ/);
  if (!result.success) {
    expect(ERROR_KINDS).toContain(result.data['error_kind']);
    expect(result.data['error_code']).toMatch(/^[a-z]+(_[a-z]+)*$/);
  }
}

/** Runs one plugin action against the sandbox, exactly as the runtime would call the entry. */
export async function runFinance(sandbox: UpstreamFinanceSandbox, action: string, options: FinanceCallOptions = {}): Promise<PluginExecuteResult> {
  const result = await execute(financeInput(sandbox, action, options));
  expectContract(action, result);
  return result;
}

/** Narrows a `data` member for assertions. */
export function field<T>(data: Record<string, unknown>, key: string): T {
  return data[key] as T;
}

export type Downstream = { token: string; url: string; service_id: number };

let nextServiceId = 1000;

/** A fresh downstream reference (32-character token, callback base URL, service id). */
export function newDownstream(): Downstream {
  nextServiceId += 1;
  return { token: randomBytes(16).toString('hex'), url: 'https://platform.example.com', service_id: nextServiceId };
}

/** Runs an action and fails the test with the plugin's message when it did not succeed. */
export async function runOk(sandbox: UpstreamFinanceSandbox, action: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await runFinance(sandbox, action, { payload });
  expect(result.success, `${action}: ${result.message} ${JSON.stringify(result.data)}`).toBe(true);
  return result.data;
}

/** Product 101 (Hong Kong cloud), monthly, 2 cores, 2 GB, Ubuntu 22.04, two IPs. */
export const CLOUD_ORDER = {
  product_id: 101,
  billing_period: 'monthly',
  config: { '10101': 1010102, '10102': 1010202, '10105': 2, '10107': 1010702 },
  hostname: 'web01.example.net',
  password: 'Sandbox2024pass',
};

export type PurchaseIds = { invoice_id: number; host_id: number };

/** probe → cart → checkout → pay through the plugin; returns the upstream invoice and host. */
export async function buyCloudHost(sandbox: UpstreamFinanceSandbox, downstream: Downstream): Promise<PurchaseIds> {
  await runOk(sandbox, 'upstream.purchase_probe', { downstream });
  await runOk(sandbox, 'upstream.purchase_cart', { downstream, ...CLOUD_ORDER });
  const checkout = await runOk(sandbox, 'upstream.purchase_checkout', { downstream });
  const ids = { invoice_id: field<number>(checkout, 'invoice_id'), host_id: field<number>(checkout, 'host_id') };
  await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: ids.invoice_id });
  return ids;
}

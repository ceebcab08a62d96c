import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clearAllTokens } from '../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { UPSTREAM_STATUS_MEANINGS, statusFailure } from '../../../plugins/upstream/upstream_finance/client/status-map.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import type { UpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/types.js';
import { runFinance } from './finance-harness.js';

const CHINESE = /[\u4e00-\u9fa5]/;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('upstream finance failures', () => {
  let sandbox: UpstreamFinanceSandbox;

  beforeAll(async () => {
    sandbox = await startUpstreamFinanceSandbox();
  });

  beforeEach(async () => {
    clearAllTokens();
    sandbox.control.failNext(0, 'html500');
    expect((await runFinance(sandbox, 'upstream.user')).success).toBe(true);
    sandbox.control.resetCounters();
  });

  afterAll(async () => {
    await sandbox.stop();
    clearAllTokens();
  });

  it('an HTML 500 page is a transient failure with a Chinese message; the raw page stays in diagnostics', async () => {
    sandbox.control.failNext(1, 'html500');
    const result = await runFinance(sandbox, 'upstream.credit');
    expect(result).toMatchObject({ success: false, message: '上游服务异常，请稍后重试', data: { error_kind: 'transient', error_code: 'upstream_unavailable' } });
    expect(JSON.stringify(result.data)).not.toContain('<html');
    expect(result.diagnostics).toMatchObject({ http_status: 500, body_snippet: expect.stringContaining('500 Internal Server Error') });
  });

  it('a failed call clears the cached token so the next call logs in again', async () => {
    sandbox.control.failNext(1, 'html500');
    expect((await runFinance(sandbox, 'upstream.credit')).success).toBe(false);
    expect((await runFinance(sandbox, 'upstream.credit')).success).toBe(true);
    expect(sandbox.control.counters().logins).toBe(1);
  });

  it('maintenance (status 503) is transient', async () => {
    sandbox.control.failNext(1, 'maintenance');
    const result = await runFinance(sandbox, 'upstream.host_list');
    expect(result).toMatchObject({
      success: false,
      message: '上游系统维护中，请稍后重试',
      data: { error_kind: 'transient', error_code: 'upstream_maintenance', upstream_status: 503 },
    });
    expect(result.diagnostics).toMatchObject({ upstream_message: '系统维护中，请稍后再试' });
  });

  it('a hanging upstream times out as a transient failure', async () => {
    sandbox.control.failNext(1, 'timeout');
    const result = await runFinance(sandbox, 'upstream.credit', { config: { timeout_ms: 300 } });
    expect(result).toMatchObject({ success: false, message: '上游请求超时，请稍后重试', data: { error_kind: 'transient', error_code: 'timeout' } });
  });

  it('the invocation signal also stops a hanging call', async () => {
    sandbox.control.failNext(1, 'timeout');
    const result = await runFinance(sandbox, 'upstream.credit', { signal: AbortSignal.timeout(300) });
    expect(result.data).toMatchObject({ error_kind: 'transient', error_code: 'timeout' });
  });

  it('an unreachable supplier is transient', async () => {
    const port = await closedPort();
    const result = await runFinance(sandbox, 'upstream.credit', { config: { base_url: `http://127.0.0.1:${port}` } });
    expect(result).toMatchObject({ success: false, message: '无法连接上游服务，请稍后重试', data: { error_kind: 'transient', error_code: 'network_error' } });
    const health = await runFinance(sandbox, 'health_check', { config: { base_url: `http://127.0.0.1:${port}` } });
    expect(health).toMatchObject({ success: false, data: { healthy: false, error_kind: 'transient' } });
  });

  it('an HTML 500 on login is transient too', async () => {
    clearAllTokens();
    sandbox.control.failNext(1, 'html500');
    const result = await runFinance(sandbox, 'upstream.user');
    expect(result.data).toMatchObject({ error_kind: 'transient', error_code: 'upstream_unavailable' });
  });

  it('an unknown path (HTML 404) is a permanent failure', async () => {
    const result = await runFinance(sandbox, 'upstream.credit', { config: { base_url: `${sandbox.baseUrl}/not-here` } });
    expect(result).toMatchObject({ success: false, data: { error_kind: 'permanent', error_code: 'upstream_http_error' } });
    expect(result.diagnostics).toMatchObject({ http_status: 404 });
  });

  it('bad configuration and unknown actions fail permanently without calling the upstream', async () => {
    const badUrl = await runFinance(sandbox, 'upstream.credit', { config: { base_url: 'ftp://example.com' } });
    expect(badUrl).toMatchObject({ success: false, message: '插件配置错误：接口地址不是有效的 HTTP(S) 地址', data: { error_kind: 'permanent', error_code: 'config_invalid' } });
    const noKey = await runFinance(sandbox, 'upstream.credit', { config: { api_key: '' } });
    expect(noKey.message).toBe('插件配置错误：未填写 API 密钥');
    const unknown = await runFinance(sandbox, 'upstream.buy_everything');
    expect(unknown).toMatchObject({ success: false, action: 'upstream.buy_everything', data: { error_kind: 'permanent', error_code: 'unsupported_action' } });
    expect(sandbox.control.counters().paths).toEqual({});
  });

  it('maps every upstream status to a Chinese message and a kind', () => {
    expect(Object.keys(UPSTREAM_STATUS_MEANINGS).map(Number).sort((a, b) => a - b)).toEqual([200, 400, 405, 406, 410, 415, 503, 1001]);
    for (const meaning of Object.values(UPSTREAM_STATUS_MEANINGS)) expect(meaning.message).toMatch(CHINESE);
    const kinds = Object.fromEntries([400, 405, 406, 410, 415, 503, 999].map((s) => [s, statusFailure(s, 'raw').kind]));
    expect(kinds).toEqual({ 400: 'permanent', 405: 'transient', 406: 'permanent', 410: 'permanent', 415: 'permanent', 503: 'transient', 999: 'permanent' });
    expect(statusFailure(410, 'raw')).toMatchObject({ reason: 'realname_required', message: '上游账户需要先完成实名认证', upstreamMessage: 'raw' });
    expect(statusFailure(415, 'raw').reason).toBe('phone_binding_required');
    expect(statusFailure(405, 'raw').reason).toBe('token_rejected');
    expect(statusFailure(999, 'raw').reason).toBe('unknown_status');
  });

  it('tells business and validation answers apart by the upstream wording', () => {
    const reasons = [
      [400, '余额不足，请先充值'],
      [400, '商品库存不足'],
      [400, '该商品已售罄'],
      [400, '购物车为空'],
      [400, '主机当前状态不支持该操作'],
      [406, '商品不存在或已下架'],
      [406, '产品已下架'],
      [406, '主机不存在'],
      [406, '参数错误'],
    ].map(([status, msg]) => statusFailure(Number(status), String(msg)).reason);
    expect(reasons).toEqual([
      'supplier_balance_insufficient',
      'out_of_stock',
      'out_of_stock',
      'cart_empty',
      'business_error',
      'product_gone',
      'product_gone',
      'not_found',
      'validation_failed',
    ]);
    expect(statusFailure(400, '余额不足')).toMatchObject({ kind: 'permanent', message: '上游供应商账户余额不足，请充值后重试', upstreamMessage: '余额不足' });
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startUpstreamFinanceSandbox } from '../../sandbox/upstream-finance/server.js';
import { DEFAULT_SANDBOX_ACCOUNT } from '../../sandbox/upstream-finance/state.js';
import type { SandboxLedger, UpstreamFinanceSandbox } from '../../sandbox/upstream-finance/types.js';

type Envelope = { status: number; msg: string; data: Record<string, unknown> };

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('upstream finance sandbox: buying, billing, hosts and switches over HTTP', () => {
  let sandbox: UpstreamFinanceSandbox;
  let jwt: string;
  let otherJwt: string;

  async function call(path: string, init: RequestInit = {}): Promise<{ http: number; body: Envelope }> {
    const response = await fetch(`${sandbox.baseUrl}${path}`, init);
    return { http: response.status, body: (await response.json()) as Envelope };
  }

  async function login(username: string, apiKey: string): Promise<string> {
    const response = await fetch(`${sandbox.baseUrl}/finance_api_login`, { method: 'POST', headers: FORM, body: new URLSearchParams({ username, password: apiKey }).toString() });
    return ((await response.json()) as { jwt: string }).jwt;
  }

  function post(path: string, form: Record<string, string>, token = jwt): Promise<{ http: number; body: Envelope }> {
    return call(path, { method: 'POST', headers: { ...FORM, authorization: `Bearer ${token}` }, body: new URLSearchParams(form).toString() });
  }

  function get(path: string, token = jwt): Promise<{ http: number; body: Envelope }> {
    return call(path, { headers: { authorization: `Bearer ${token}` } });
  }

  async function control(path: string, form: Record<string, string> = {}): Promise<Response> {
    return fetch(`${sandbox.baseUrl}/__control${path}`, { method: 'POST', headers: FORM, body: new URLSearchParams(form).toString() });
  }

  function reference(): Record<string, string> {
    return { downstream_token: randomBytes(16).toString('hex'), downstream_url: 'https://platform.example.com', downstream_id: String(Math.floor(Math.random() * 1e6) + 1) };
  }

  /** Cart line for product 101: 1 core, 1 GB, CentOS, one IP (59 + 15 = 74.00 a month). */
  const CLOUD_LINE = { pid: '101', billingcycle: 'monthly', qty: '1', 'configoption[10105]': '1', password: 'Sandbox2024pass' };

  async function buy(ref: Record<string, string>): Promise<{ invoiceId: number; hostId: number }> {
    expect((await post('/cart/add_to_shop', { ...ref, ...CLOUD_LINE })).body.status).toBe(200);
    const settle = await post('/cart/settle', ref);
    expect(settle.body.status).toBe(200);
    return { invoiceId: settle.body.data['invoiceid'] as number, hostId: (settle.body.data['hostid'] as number[])[0] ?? 0 };
  }

  beforeAll(async () => {
    sandbox = await startUpstreamFinanceSandbox({ accounts: [DEFAULT_SANDBOX_ACCOUNT, { username: 'other', apiKey: 'other-key' }] });
    jwt = await login(DEFAULT_SANDBOX_ACCOUNT.username, DEFAULT_SANDBOX_ACCOUNT.apiKey);
    otherJwt = await login('other', 'other-key');
  });

  beforeEach(() => {
    sandbox.control.clearFaults();
    sandbox.control.setCredit('10000.00');
  });

  afterAll(async () => {
    await sandbox.stop();
  });

  it('checks cart lines like the upstream: product, cycle, options, quantities, password and stock', async () => {
    const ref = reference();
    const add = (extra: Record<string, string>) => post('/cart/add_to_shop', { ...ref, ...CLOUD_LINE, ...extra });
    expect((await post('/cart/add_to_shop', CLOUD_LINE)).body).toEqual({ status: 406, msg: '缺少下游信息', data: {} });
    expect((await add({ downstream_token: 'x'.repeat(31) })).body.msg).toBe('下游信息格式不正确');
    expect((await add({ pid: '999' })).body).toEqual({ status: 406, msg: '商品不存在或已下架', data: {} });
    expect((await add({ billingcycle: 'biennially' })).body.msg).toBe('付款周期无效');
    expect((await add({ 'configoption[99999]': '1' })).body.msg).toBe('配置项不存在');
    expect((await add({ 'configoption[10101]': '1' })).body.msg).toBe('配置项取值无效');
    expect((await add({ 'configoption[10105]': '9' })).body.msg).toBe('配置项取值无效');
    expect((await add({ password: 'short' })).body.msg).toBe('密码格式不正确，需 8 到 32 位且包含字母和数字');
    expect((await add({ hostname: '-bad-' })).body.msg).toBe('主机名格式不正确');
    sandbox.control.setStock(101, 0);
    expect((await add({})).body).toEqual({ status: 400, msg: '商品库存不足', data: {} });
    sandbox.control.setStock(101, null);

    const ok = await add({ 'configoption[10101]': '1010102' });
    expect(ok.body).toEqual({ status: 200, msg: '加入购物车成功', data: { count: 1, total: '94.00' } });
    const json = await call('/cart/add_to_shop', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` },
      body: JSON.stringify({ ...ref, pid: 102, billingcycle: 'annually', configoption: { 10205: 3 } }),
    });
    expect(json.body.data).toEqual({ count: 2, total: '1152.00' });
    expect((await post('/cart/clear', ref)).body).toEqual({ status: 200, msg: '购物车已清空', data: {} });
    expect((await post('/cart/settle', ref)).body).toEqual({ status: 400, msg: '购物车为空', data: {} });
  });

  it('settles once per downstream reference: a repeat answers the same order and only counts the attempt', async () => {
    const ref = reference();
    await post('/cart/add_to_shop', { ...ref, ...CLOUD_LINE });
    const first = await post('/cart/settle', ref);
    expect(first.body).toMatchObject({ status: 200, msg: '下单成功', data: { orderid: expect.any(Number), invoiceid: expect.any(Number), hostid: [expect.any(Number)], total: '74.00', paid: 0 } });
    const repeat = await post('/cart/settle', ref);
    expect(repeat.body).toEqual({ status: 200, msg: '订单已存在', data: first.body.data });
    const probe = await post('/cart/clear', ref);
    const hostIds = first.body.data['hostid'] as number[];
    expect(probe.body).toEqual({ status: 200, msg: '订单已存在', data: { ...first.body.data, hostid: hostIds[0], hostids: hostIds } });
    expect((await post('/cart/settle', ref, otherJwt)).body).toEqual({ status: 406, msg: '下游标识已被其他账户使用', data: {} });

    const ledger = (await (await fetch(`${sandbox.baseUrl}/__control/ledger`)).json()) as SandboxLedger;
    expect(ledger.purchases[ref['downstream_token'] ?? '']).toBe(1);
    expect(ledger.settleAttempts[ref['downstream_token'] ?? '']).toBe(3);
  });

  it('a settle takes stock: the catalogue shows one less', async () => {
    const stockOf = async () => ((await get('/cart/get_product_config?pid=201')).body.data['products'] as { qty: number }).qty;
    const before = await stockOf();
    const ref = reference();
    await post('/cart/add_to_shop', { ...ref, pid: '201', billingcycle: 'monthly' });
    await post('/cart/settle', ref);
    expect(await stockOf()).toBe(before - 1);
  });

  it('pays from credit: 1001 once, 1001 again without taking money, refuses with low credit, partial on command', async () => {
    const { invoiceId, hostId } = await buy(reference());
    expect((await post('/pay', { invoiceid: String(invoiceId) })).body).toEqual({ status: 406, msg: '参数错误', data: {} });
    sandbox.control.setCredit('10.00');
    expect((await post('/pay?action=billing&pay=true', { invoiceid: String(invoiceId) })).body).toEqual({ status: 400, msg: '余额不足，请先充值', data: {} });
    sandbox.control.setCredit('100.00');
    expect((await control('/partial-payments', { count: '1' })).status).toBe(200);
    expect((await post('/pay?action=billing&pay=true', { invoiceid: String(invoiceId) })).body).toEqual({ status: 200, msg: '余额已抵扣', data: { invoiceid: invoiceId } });
    expect(sandbox.control.credit()).toBe('63.00');
    const check = await get(`/check_order?invoiceid=${invoiceId}`);
    expect(check.body.data['invoice']).toMatchObject({ id: invoiceId, type: 'product', status: 'Unpaid', total: '74.00', credit: '37.00' });
    expect((await post('/pay?action=billing&pay=true', { invoiceid: String(invoiceId) })).body).toEqual({ status: 1001, msg: '支付成功', data: { invoiceid: invoiceId, status: 'Paid' } });
    expect((await post('/pay?action=billing&pay=true', { invoiceid: String(invoiceId) })).body.status).toBe(1001);
    expect(sandbox.control.credit()).toBe('26.00');
    expect(sandbox.control.ledger().pays[String(invoiceId)]).toBe(2);
    expect((await post('/pay?action=billing&pay=true', { invoiceid: String(invoiceId) }, otherJwt)).body.msg).toBe('账单不存在');

    const byHost = await get(`/check_order?hostid=${hostId}`);
    expect(byHost.body.data).toMatchObject({
      order: { status: 'Active', invoiceid: invoiceId, hostid: [hostId] },
      invoice: { id: invoiceId, status: 'Paid' },
      hosts: [{ id: hostId, domainstatus: 'Active' }],
      invoices: [{ id: invoiceId, type: 'product', status: 'Paid' }],
    });
  });

  it('slow provisioning: a paid host stays Pending for the configured polls, or while the delay runs', async () => {
    expect((await control('/provisioning-delay', { polls: '1' })).status).toBe(200);
    const first = await buy(reference());
    await post('/pay?action=billing&pay=true', { invoiceid: String(first.invoiceId) });
    const status = async (id: number) => ((await get(`/host/header?host_id=${id}&source=API`)).body.data['host_data'] as { domainstatus: string }).domainstatus;
    expect([await status(first.hostId), await status(first.hostId)]).toEqual(['Pending', 'Active']);

    await control('/provisioning-delay', { ms: '600000' });
    const second = await buy(reference());
    await post('/pay?action=billing&pay=true', { invoiceid: String(second.invoiceId) });
    expect([await status(second.hostId), await status(second.hostId)]).toEqual(['Pending', 'Pending']);
    expect(((await (await fetch(`${sandbox.baseUrl}/__control/hosts/${second.hostId}`)).json()) as { status: string }).status).toBe('Pending');
    await control('/provisioning-delay', { polls: '0', ms: '0' });
  });

  it('renews and sells traffic packages through invoices; refuses what the upstream refuses', async () => {
    const { invoiceId, hostId } = await buy(reference());
    expect((await post('/host/renew', { hostid: String(hostId), billingcycle: 'monthly' })).body).toEqual({ status: 400, msg: '主机当前状态不支持该操作', data: {} });
    await post('/pay?action=billing&pay=true', { invoiceid: String(invoiceId) });
    const due = sandbox.control.host(hostId)?.nextDueDate ?? 0;
    expect((await post('/host/renew', { hostid: String(hostId), billingcycle: 'biennially' })).body.msg).toBe('付款周期无效');
    const renew = await post('/host/renew', { hostid: String(hostId), billingcycle: 'quarterly' });
    expect(renew.body).toMatchObject({ status: 200, msg: '续费账单已生成', data: { total: '214.00', billingcycle: 'quarterly' } });
    const replaced = await post('/host/renew', { hostid: String(hostId), billingcycle: 'monthly' });
    expect(sandbox.control.invoice(renew.body.data['invoiceid'] as number)?.status).toBe('Cancelled');
    await post('/pay?action=billing&pay=true', { invoiceid: String(replaced.body.data['invoiceid']) });
    const renewed = sandbox.control.host(hostId);
    expect(renewed?.nextDueDate).toBeGreaterThan(due);
    expect(renewed?.billingCycle).toBe('monthly');

    expect((await post('/host/flowpacket/buy', { hostid: String(hostId), fid: '99' })).body.msg).toBe('流量包不存在');
    const packet = await post('/host/flowpacket/buy', { hostid: String(hostId), fid: '11' });
    expect(packet.body).toMatchObject({ status: 200, data: { total: '10.00', fid: 11 } });
    await post('/pay?action=billing&pay=true', { invoiceid: String(packet.body.data['invoiceid']) });
    const header = await get(`/host/header?host_id=${hostId}&source=API`);
    expect(header.body.data['host_data']).toMatchObject({ bwlimit: 1100, flow_packet_total: 100 });
    expect(sandbox.control.ledger()).toMatchObject({ renewals: { [hostId]: 1 }, trafficPurchases: { [`${hostId}:11`]: 1 } });
  });

  it('insists on the JWT scheme for custom module requests and on the jwt query parameter for pages', async () => {
    const hostId = 5001;
    const bearer = await post(`/provision/custom/${hostId}`, { func: 'createSnapshot', name: 'x' });
    expect(bearer.body).toEqual({ status: 405, msg: '自定义模块请求需使用 JWT 鉴权', data: {} });
    const noQuery = await call(`/provision/custom/content?id=${hostId}&key=snapshots`, { headers: { authorization: `JWT ${jwt}` } });
    expect(noQuery.body.status).toBe(405);
    const page = await call(`/provision/custom/content?id=${hostId}&key=security_groups&jwt=${jwt}`, { headers: { authorization: `JWT ${jwt}` } });
    expect(page.body).toMatchObject({ status: 200, data: { key: 'security_groups', total: 1 } });
    const calls = sandbox.control.ledger().moduleCalls.slice(-3);
    expect(calls.map((c) => [c.scheme, c.query?.jwtMatchesHeader ?? null, c.func])).toEqual([
      ['Bearer', null, 'createSnapshot'],
      ['JWT', false, null],
      ['JWT', true, null],
    ]);
  });

  it('targets faults at one path, after commit, and never rejects the login itself', async () => {
    sandbox.control.failNext(1, 'html500', { path: '/cart/credit' });
    expect((await get('/v1/user')).body.status).toBe(200);
    expect((await fetch(`${sandbox.baseUrl}/cart/credit`, { headers: { authorization: `Bearer ${jwt}` } })).status).toBe(500);
    expect((await get('/cart/credit')).body.status).toBe(200);

    expect((await control('/fail-next', { count: '2', mode: 'token_rejected' })).status).toBe(200);
    const relogin = await login(DEFAULT_SANDBOX_ACCOUNT.username, DEFAULT_SANDBOX_ACCOUNT.apiKey);
    expect(relogin).toMatch(/^eyJ/);
    expect((await get('/cart/credit')).body.status).toBe(405);
    expect((await get('/cart/credit')).body.status).toBe(405);
    expect((await get('/cart/credit')).body.status).toBe(200);

    const ref = reference();
    await post('/cart/add_to_shop', { ...ref, ...CLOUD_LINE });
    expect((await control('/fail-next', { count: '1', mode: 'html500', path: '/cart/settle', after_commit: 'true' })).status).toBe(200);
    expect((await fetch(`${sandbox.baseUrl}/cart/settle`, { method: 'POST', headers: { ...FORM, authorization: `Bearer ${jwt}` }, body: new URLSearchParams(ref).toString() })).status).toBe(500);
    expect(sandbox.control.purchases()[ref['downstream_token'] ?? '']).toBe(1);

    sandbox.control.failNext(5, 'maintenance');
    expect((await control('/clear-faults')).status).toBe(200);
    expect((await get('/cart/credit')).body.status).toBe(200);
  });

  it('suspends, unsuspends and terminates over HTTP; refuses on command, defers on command, removes hosts', async () => {
    const { hostId, invoiceId } = await buy(reference());
    expect((await post('/pay?action=billing&pay=true', { invoiceid: String(invoiceId) })).body.status).toBe(1001);
    const act = (func: string) => post('/provision/default', { id: String(hostId), func });
    expect((await control('/fail-next', { count: '1', mode: 'refused', path: '/provision/default' })).status).toBe(200);
    expect((await act('suspend')).body).toMatchObject({ status: 400, msg: '操作被拒绝，请联系客服处理' });
    expect(sandbox.control.host(hostId)?.status).toBe('Active');
    expect((await control('/defer-state-actions', { count: '1' })).status).toBe(200);
    expect((await act('suspend')).body.status).toBe(200);
    expect(sandbox.control.host(hostId)?.status).toBe('Active');
    expect((await act('suspend')).body.status).toBe(200);
    expect(sandbox.control.host(hostId)).toMatchObject({ status: 'Suspended', power: 'off' });
    expect((await act('reboot')).body).toMatchObject({ status: 400, msg: '主机当前状态不支持该操作' });
    expect((await act('unsuspend')).body.status).toBe(200);
    expect(sandbox.control.host(hostId)).toMatchObject({ status: 'Active', power: 'on' });
    expect((await act('unsuspend')).body.status).toBe(400);
    expect((await act('terminate')).body.status).toBe(200);
    expect(sandbox.control.host(hostId)?.status).toBe('Terminated');
    expect((await control('/remove-host', { host_id: String(hostId) })).status).toBe(200);
    expect(sandbox.control.host(hostId)).toBeNull();
    expect((await get('/host/header?host_id=' + hostId + '&source=API')).body.status).toBe(406);
  });

  it('refuses bad control input', async () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['/fail-next', { count: '1', mode: 'explode' }],
      ['/fail-next', { count: '-1', mode: 'html500' }],
      ['/fail-next', { count: '1', mode: 'html500', path: 'cart/settle' }],
      ['/fail-next', { count: '1', mode: 'html500', after_commit: 'maybe' }],
      ['/stock', { pid: 'x', qty: '1' }],
      ['/stock', { pid: '101', qty: '-3' }],
      ['/provisioning-delay', { polls: 'many' }],
      ['/partial-payments', { count: '1.5' }],
      ['/credit', { amount: 'lots' }],
      ['/remove-host', { host_id: 'x' }],
      ['/defer-state-actions', { count: 'some' }],
    ];
    for (const [path, form] of cases) expect((await control(path, form)).status, `${path} ${JSON.stringify(form)}`).toBe(400);
    expect((await control('/stock', { pid: '12345', qty: '1' })).status).toBe(404);
    expect((await control('/remove-host', { host_id: '424242' })).status).toBe(404);
    expect((await fetch(`${sandbox.baseUrl}/__control/invoices/1`)).status).toBe(404);
  });
});

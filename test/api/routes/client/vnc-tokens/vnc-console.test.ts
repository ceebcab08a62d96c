import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../../../api/app.js';
import { serveApp } from '../../../../../api/server.js';
import { VNC_TOKENS_PER_HOUR } from '../../../../../domain/services/console/vnc.js';
import { hashVncToken } from '../../../../../domain/services/console/vnc-tokens.js';
import { RfbHandshakeError } from '../../../../../lib/rfb/protocol.js';
import { CONSOLE_PICTURE } from '../../../../../sandbox/upstream-finance/console/picture.js';
import { expectError } from '../../../../helpers/http.js';
import { registerClient, type TestClient } from '../../../../helpers/billing.js';
import { connectRfb, framePixel, type RfbSession, UpgradeRefused } from '../../../../helpers/rfb-client.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../../../helpers/services.js';
import { captureLogs, getFrom, openConsole, redeemConsole, relayUrl } from '../../../../helpers/vnc.js';
import { eventually } from '../../../../helpers/wait.js';

let platform: ServicesPlatform;
let client: TestClient;
let logs: string[];
/** Everything a browser could have seen: HTTP bodies and every websocket message the relay sent. */
const seenByBrowsers: string[] = [];

beforeAll(async () => {
  platform = await startServicesPlatform();
  logs = captureLogs(platform);
  client = await registerClient(platform);
});
afterAll(() => platform?.close());

async function newService(userId = client.id): Promise<{ id: number; hostId: number }> {
  const hostId = takeHost(platform);
  return { id: await createService(platform, { userId, productId: platform.productId, hostId }), hostId };
}

/** Public token → relay token → websocket, as the console page does it. */
async function connectThroughRelay(serviceId: number, token = client.token): Promise<RfbSession> {
  const opened = await openConsole(platform, token, serviceId);
  const redeemed = await redeemConsole(platform, opened.token);
  seenByBrowsers.push(JSON.stringify(opened), JSON.stringify(redeemed));
  const session = await connectRfb(relayUrl(redeemed));
  seenByBrowsers.push(...session.received.map((b) => b.toString('latin1')));
  return session;
}

async function sessionEvents(serviceId: number) {
  return platform.deps.db.models.ServiceEvent.findAll({ where: { service_id: serviceId, kind: 'console', stage: 'vnc_session' }, order: [['id', 'ASC']] });
}

async function endedEvent(serviceId: number) {
  return eventually(async () => (await sessionEvents(serviceId))[0]);
}

describe('VNC console: public token, relay token, websocket relay', () => {
  it('relays the sandbox console to a client offered security type None, and records the session', async () => {
    const { id, hostId } = await newService();
    const opened = await openConsole(platform, client.token, id);
    const redeemed = await redeemConsole(platform, opened.token);
    expect(redeemed).toEqual({
      service_id: id,
      relay_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      relay_expires_in: 30,
      relay_expires_at: expect.any(String),
      websocket_url: `${platform.baseUrl.replace('http', 'ws')}/console/vnc/relay`,
    });
    const session = await connectRfb(relayUrl(redeemed));
    // The relay answered with None only: the RFB server greeting, then [1 type: None].
    expect(session.received[1]?.toString('hex')).toBe('0101');
    expect(session.serverInit).toMatchObject({ width: 320, height: 240, name: `sandbox host ${hostId}` });
    const frame = await session.requestFrame();
    expect([framePixel(frame, 10, 10), framePixel(frame, 310, 10), framePixel(frame, 10, 230), framePixel(frame, 310, 230)]).toEqual([
      CONSOLE_PICTURE.topLeft,
      CONSOLE_PICTURE.topRight,
      CONSOLE_PICTURE.bottomLeft,
      CONSOLE_PICTURE.bottomRight,
    ]);
    seenByBrowsers.push(...session.received.map((b) => b.toString('latin1')));
    session.close();
    await session.closed;

    const event = await endedEvent(id);
    expect(event).toMatchObject({ status: 'succeeded', operator_type: 'user', operator_id: client.id });
    expect(event.message).toMatch(/^VNC 控制台会话已结束，时长 \d+ 秒（浏览器已断开）$/);
    expect(event.detail).toMatchObject({ client_ip: '127.0.0.1', close_reason: 'browser_closed', duration_seconds: expect.any(Number), started_at: expect.any(String), ended_at: expect.any(String) });
    expect(event.detail['bytes_to_browser']).toBeGreaterThan(320 * 240 * 4);
    expect(platform.sandbox.control.ledger().consoleSessions[hostId]).toBe(1);
    const row = await platform.deps.db.models.VncSession.findOne({ where: { service_id: id } });
    expect(row).toMatchObject({ user_id: client.id, client_ip: '127.0.0.1', close_reason: 'browser_closed', public_token_hash: hashVncToken(opened.token), relay_token_hash: hashVncToken(redeemed.relay_token) });
    expect(JSON.stringify(row?.toJSON())).not.toContain(opened.token);
  });

  it('takes a public token once: a repeat is 40400, and of two racing redemptions exactly one wins', async () => {
    const { id } = await newService();
    const opened = await openConsole(platform, client.token, id);
    await redeemConsole(platform, opened.token);
    expectError(await platform.api.get(`/api/v2/client/vnc-tokens/${opened.token}`), 40400, 404);

    const racing = await openConsole(platform, client.token, id);
    const answers = await Promise.all(Array.from({ length: 8 }, () => platform.api.get(`/api/v2/client/vnc-tokens/${racing.token}`)));
    expect(answers.map((a) => a.body.code).sort()).toEqual([0, 40400, 40400, 40400, 40400, 40400, 40400, 40400]);
  });

  it('limits console tokens per service and hour', async () => {
    const { id } = await newService();
    await platform.deps.db.sequelize.query(
      `INSERT INTO vnc_sessions (service_id, user_id, client_ip, public_token_hash, public_expires_at)
       SELECT :id, :user, '127.0.0.1', md5(random()::text) || md5(random()::text), now() FROM generate_series(1, :n)`,
      { replacements: { id, user: client.id, n: VNC_TOKENS_PER_HOUR - 1 } },
    );
    expect((await platform.api.post(`/api/v2/client/services/${id}/vnc`, { token: client.token })).body.code).toBe(0);
    const refused = await platform.api.post(`/api/v2/client/services/${id}/vnc`, { token: client.token });
    expectError(refused, 42900, 429);
    expect(refused.body.message).toContain(String(VNC_TOKENS_PER_HOUR));
  });

  it('refuses an expired public token, an expired relay token and a relay token used twice', async () => {
    const { id } = await newService();
    const stale = await openConsole(platform, client.token, id);
    await platform.deps.db.sequelize.query(`UPDATE vnc_sessions SET public_expires_at = now() - interval '1 second' WHERE public_token_hash = :h`, { replacements: { h: hashVncToken(stale.token) } });
    expectError(await platform.api.get(`/api/v2/client/vnc-tokens/${stale.token}`), 40400, 404);

    const expired = await redeemConsole(platform, (await openConsole(platform, client.token, id)).token);
    await platform.deps.db.sequelize.query(`UPDATE vnc_sessions SET relay_expires_at = now() - interval '1 second' WHERE relay_token_hash = :h`, { replacements: { h: hashVncToken(expired.relay_token) } });
    const refused = await connectRfb(relayUrl(expired)).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(UpgradeRefused);
    expect(refused).toMatchObject({ status: 404 });
    expect(JSON.parse((refused as UpgradeRefused).body)).toMatchObject({ code: 40400, message: expect.stringMatching(/令牌/), data: null });

    const once = await redeemConsole(platform, (await openConsole(platform, client.token, id)).token);
    const first = await connectRfb(relayUrl(once));
    await expect(connectRfb(relayUrl(once))).rejects.toMatchObject({ status: 404 });
    first.close();
  });

  it('refuses another user’s token, and a token whose service changed hands or stopped', async () => {
    const { id } = await newService();
    const other = await registerClient(platform);
    expectError(await platform.api.post(`/api/v2/client/services/${id}/vnc`, { token: other.token }), 40400, 404);

    const opened = await openConsole(platform, client.token, id);
    expectError(await platform.api.get(`/api/v2/client/vnc-tokens/${opened.token}`, { token: other.token }), 40400, 404);
    expectError(await platform.api.get(`/api/v2/client/vnc-tokens/${opened.token}`, { token: 'not-a-token' }), 40100, 401);
    // Refused attempts spend nothing: the owner (logged in or not) still redeems it.
    expect((await platform.api.get(`/api/v2/client/vnc-tokens/${opened.token}`, { token: client.token })).body.code).toBe(0);

    const moved = await openConsole(platform, client.token, id);
    await platform.deps.db.models.Service.update({ user_id: other.id }, { where: { id } });
    expectError(await platform.api.get(`/api/v2/client/vnc-tokens/${moved.token}`), 40400, 404);
    await platform.deps.db.models.Service.update({ user_id: client.id }, { where: { id } });

    const relay = await redeemConsole(platform, (await openConsole(platform, client.token, id)).token);
    await platform.deps.db.models.Service.update({ status: 'suspended' }, { where: { id } });
    await expect(connectRfb(relayUrl(relay))).rejects.toMatchObject({ status: 404 });
    expectError(await platform.api.post(`/api/v2/client/services/${id}/vnc`, { token: client.token }), 40944, 409);
  });

  it('refuses a token presented from another address, without spending it', async () => {
    const { id } = await newService();
    const opened = await openConsole(platform, client.token, id);
    const elsewhere = await getFrom('127.0.0.2', `${platform.baseUrl}/api/v2/client/vnc-tokens/${opened.token}`);
    expect(elsewhere).toMatchObject({ status: 404, body: { code: 40400 } });
    const redeemed = await redeemConsole(platform, opened.token);
    const fromElsewhere = await connectRfb(relayUrl(redeemed), { localAddress: '127.0.0.2' }).catch((err: unknown) => err);
    expect(fromElsewhere).toMatchObject({ status: 404 });
    const session = await connectRfb(relayUrl(redeemed));
    expect(session.serverInit.width).toBe(320);
    session.close();
  });

  it('answers refused upgrades with the envelope: unknown path, malformed token, foreign origin', async () => {
    const ws = platform.baseUrl.replace('http', 'ws');
    await expect(connectRfb(`${ws}/console/vnc/elsewhere`)).rejects.toMatchObject({ status: 404 });
    await expect(connectRfb(`${ws}/console/vnc/relay?token=short`)).rejects.toMatchObject({ status: 404 });
    const { id } = await newService();
    const redeemed = await redeemConsole(platform, (await openConsole(platform, client.token, id)).token);
    const foreign = await connectRfb(relayUrl(redeemed), { headers: { origin: 'https://evil.example.com' } }).catch((err: unknown) => err);
    expect(foreign).toMatchObject({ status: 403 });
    expect(JSON.parse((foreign as UpgradeRefused).body)).toMatchObject({ code: 40300 });
    // The foreign attempt did not spend the relay token.
    const session = await connectRfb(relayUrl(redeemed), { headers: { origin: platform.baseUrl } });
    session.close();
  });

  it('tells the browser in Chinese when the upstream console refuses or is down, and records a failed session', async () => {
    const { id } = await newService();
    platform.sandbox.control.failConsole(1, 'auth_failed');
    const refused = await connectThroughRelay(id).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RfbHandshakeError);
    expect((refused as RfbHandshakeError).message).toContain('上游控制台认证失败，请稍后重试');
    const event = await endedEvent(id);
    expect(event).toMatchObject({ status: 'failed', message: 'VNC 控制台连接失败：上游控制台认证失败，请稍后重试' });
    expect(event.detail).toMatchObject({ close_reason: 'upstream_failed' });

    const down = await newService();
    platform.sandbox.control.failNext(1, 'maintenance', { path: '/provision/default' });
    await expect(connectThroughRelay(down.id)).rejects.toMatchObject({ kind: 'auth_failed', message: expect.stringMatching(/\p{Script=Han}/u) });
    expect((await endedEvent(down.id)).status).toBe('failed');
  });

  it('closes the browser side when the upstream console goes away, and records who ended it', async () => {
    const { id } = await newService();
    const session = await connectThroughRelay(id);
    await session.requestFrame();
    expect(platform.sandbox.control.closeConsoles()).toBeGreaterThan(0);
    // The upstream's close frame passes through the relay unchanged.
    expect(await session.closed).toEqual({ code: 1000, reason: 'console closed' });
    expect((await endedEvent(id)).detail).toMatchObject({ close_reason: 'upstream_closed' });
  });

  it('closes an idle session and one past the maximum time, and says why', async () => {
    const { id } = await newService();
    const config = platform.deps.config.vnc;
    const saved = { ...config };
    try {
      config.idleTimeoutSeconds = 1;
      const idle = await connectThroughRelay(id);
      expect(await idle.closed).toEqual({ code: 4001, reason: '会话空闲超时' });
      expect((await endedEvent(id)).detail).toMatchObject({ close_reason: 'idle' });

      config.idleTimeoutSeconds = saved.idleTimeoutSeconds;
      config.maxSessionSeconds = 1;
      const { id: second } = await newService();
      const long = await connectThroughRelay(second);
      expect(await long.closed).toEqual({ code: 4002, reason: '会话时间已到' });
      expect((await endedEvent(second)).detail).toMatchObject({ close_reason: 'max_duration' });
    } finally {
      Object.assign(config, saved);
    }
  });

  it('closes a client that does not speak RFB 3.8', async () => {
    const { id } = await newService();
    const redeemed = await redeemConsole(platform, (await openConsole(platform, client.token, id)).token);
    const { WebSocket } = await import('ws');
    const socket = new WebSocket(relayUrl(redeemed));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.once('open', () => socket.send(Buffer.from('RFB 003.003\n')));
    expect(await closed).toBe(1002);
    expect((await endedEvent(id)).detail).toMatchObject({ close_reason: 'protocol_error' });
  });

  it('ends open sessions when the server stops, and records them', async () => {
    const served = await serveApp(createApp(platform.deps), { hostname: '127.0.0.1', port: 0 });
    const { id } = await newService();
    const opened = await openConsole(platform, client.token, id);
    const redeemed = await redeemConsole(platform, opened.token);
    const session = await connectRfb(relayUrl(redeemed).replace(/:\d+\//, `:${served.port}/`));
    await served.stop();
    expect(await session.closed).toEqual({ code: 1001, reason: '服务器维护' });
    expect((await sessionEvents(id))[0]?.detail).toMatchObject({ close_reason: 'shutdown' });
  });

  it('leaves no VNC password in any answer, websocket message to a browser, log line or record', async () => {
    const { id } = await newService();
    const session = await connectThroughRelay(id);
    await session.requestFrame();
    seenByBrowsers.push(...session.received.map((b) => b.toString('latin1')));
    session.close();
    await endedEvent(id);

    const passwords = platform.sandbox.control.consolePasswords();
    expect(passwords.length).toBeGreaterThan(0);
    const m = platform.deps.db.models;
    const records = JSON.stringify([
      ...(await m.ServiceEvent.findAll()).map((r) => r.toJSON()),
      ...(await m.PluginRuntimeLog.findAll({ where: { action: 'upstream.console_ticket' } })).map((r) => r.toJSON()),
      ...(await m.VncSession.findAll()).map((r) => r.toJSON()),
    ]);
    expect(records).toContain('vnc_session');
    expect(logs.join('')).toContain('vnc relay session ended');
    for (const password of passwords) {
      expect(seenByBrowsers.some((text) => text.includes(password)), 'HTTP body or websocket message').toBe(false);
      expect(logs.some((line) => line.includes(password)), 'log line').toBe(false);
      expect(records.includes(password), 'stored record').toBe(false);
    }
    // Nor the upstream's console URL (its one-time ticket).
    expect(seenByBrowsers.some((text) => text.includes('/vnc/console?host='))).toBe(false);
  });
});

import { SYSTEM_ACTOR } from '../../../lib/actor.js';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PluginExecuteInput } from '../../../plugins/runtime/contract.js';
import { execute, renderQrSvg } from '../../../plugins/verification/certify/index.js';
import { signedHeaders } from '../../../sandbox/certify/signing.js';
import { startCertifySandbox, type CertifySandbox } from '../../../sandbox/certify/server.js';

type Received = { path: string; headers: IncomingHttpHeaders; body: string };

let sandbox: CertifySandbox;
let receiver: Server;
let receiverUrl = '';
const received: Received[] = [];

beforeAll(async () => {
  sandbox = await startCertifySandbox({ port: 0, appId: 'app-9', appSecret: 's3cret-9' });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.end('success');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v2/client/verification/callback`;
});
afterAll(async () => {
  await sandbox.stop();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

function input(action: string, payload: Record<string, unknown>, config: Record<string, unknown> = {}): PluginExecuteInput {
  return {
    domain: 'verification',
    slug: 'certify',
    key: 'certify',
    action,
    payload,
    config: { app_id: 'app-9', app_secret: 's3cret-9', base_url: sandbox.baseUrl, callback_url: receiverUrl, ...config },
    context: {
      traceId: 'trace-certify',
      actor: SYSTEM_ACTOR,
      signal: AbortSignal.timeout(5000),
      urls: { publicBaseUrl: 'http://127.0.0.1:1' },
    },
  };
}

const NAME = '李四';
const ID_NUMBER = '110105194912310021';

async function startFlow(orderNo: string): Promise<{ certifyId: string; url: string }> {
  const init = await execute(input('verification.init', { outer_order_no: orderNo, kind: 'face', name: NAME, id_number: ID_NUMBER }));
  expect(init.success).toBe(true);
  const certifyId = init.data.certify_id as string;
  const link = await execute(input('verification.certify_url', { certify_id: certifyId }));
  expect(link.success).toBe(true);
  return { certifyId, url: link.data.url as string };
}

function callbackPayload(r: Received): Record<string, unknown> {
  return { headers: r.headers as Record<string, string>, body: r.body, method: 'POST', path: r.path };
}

describe('the certify verification plugin', () => {
  it('runs init → url → user passes → signed callback → query says verified', async () => {
    const { certifyId, url } = await startFlow('VO-1');
    expect(url.startsWith(`${sandbox.baseUrl}/verify/${certifyId}?`)).toBe(true);
    const pending = await execute(input('verification.query', { certify_id: certifyId }));
    expect(pending.data).toEqual({ certify_id: certifyId, passed: false, status: 1, reason_code: null, reason_message: null });

    await fetch(`${url}&result=pass`);
    const callback = received.find((r) => r.body.includes(certifyId));
    expect(callback).toBeDefined();
    const verified = await execute(input('verification.verify_callback', callbackPayload(callback as Received)));
    expect(verified).toMatchObject({ success: true, data: { certify_id: certifyId } });

    const done = await execute(input('verification.query', { certify_id: certifyId }));
    expect(done).toMatchObject({ success: true, message: '实名认证已通过', data: { passed: true, status: 2, reason_code: null } });
  });

  it('maps a failed verification to status 3 with a normalised reason', async () => {
    const { certifyId, url } = await startFlow('VO-2');
    await fetch(`${url}&result=fail&reason=FACE_MISMATCH`);
    const result = await execute(input('verification.query', { certify_id: certifyId }));
    expect(result.data).toMatchObject({ passed: false, status: 3, reason_code: 'face_mismatch', reason_message: '人脸比对未通过' });
    expect(result.message).not.toMatch(/[a-z]{4,}/i);
  });

  it('initialises idempotently per outer order number', async () => {
    const a = await execute(input('verification.init', { outer_order_no: 'VO-3', kind: 'cert_photo', name: NAME, id_number: ID_NUMBER }));
    const b = await execute(input('verification.init', { outer_order_no: 'VO-3', kind: 'cert_photo', name: NAME, id_number: ID_NUMBER }));
    expect(b.data.certify_id).toBe(a.data.certify_id);
  });

  it('never puts the name or ID number into message, data or diagnostics', async () => {
    sandbox.control.failNext('init', 'business_error');
    const results = [
      await execute(input('verification.init', { outer_order_no: 'VO-4', kind: 'face', name: NAME, id_number: ID_NUMBER })),
      await execute(input('verification.init', { outer_order_no: 'VO-4', kind: 'face', name: NAME, id_number: ID_NUMBER })),
      await execute(input('verification.init', { outer_order_no: 'VO-5', kind: 'face', name: NAME, id_number: '123' })),
    ];
    expect(results.map((r) => r.success)).toEqual([false, true, false]);
    expect(results[2]?.message).toBe('身份证号格式不正确');
    for (const r of results) {
      const text = JSON.stringify(r);
      expect(text).not.toContain(NAME);
      expect(text).not.toContain(ID_NUMBER);
    }
  });

  it('rejects callbacks signed with a wrong secret, replayed or stale', async () => {
    const { certifyId, url } = await startFlow('VO-6');
    await fetch(`${url}&result=pass`);
    const genuine = received.find((r) => r.body.includes(certifyId)) as Received;
    const path = '/api/v2/client/verification/callback';
    const body = JSON.stringify({ certify_id: certifyId, event: 'certify.finished' });

    const forged = signedHeaders('app-9', 'not-the-secret', { method: 'POST', path, body });
    const wrong = await execute(input('verification.verify_callback', { headers: forged, body }));
    expect(wrong).toMatchObject({ success: false, message: '回调签名校验失败' });

    expect((await execute(input('verification.verify_callback', callbackPayload(genuine)))).success).toBe(true);
    const replayed = await execute(input('verification.verify_callback', callbackPayload(genuine)));
    expect(replayed).toMatchObject({ success: false, message: '回调重复，已忽略' });

    const old = signedHeaders('app-9', 's3cret-9', { method: 'POST', path, body }, { nowSeconds: Math.floor(Date.now() / 1000) - 400 });
    const stale = await execute(input('verification.verify_callback', { headers: old, body }));
    expect(stale).toMatchObject({ success: false, message: '回调已过期，请以查询结果为准' });

    const tampered = signedHeaders('app-9', 's3cret-9', { method: 'POST', path, body });
    const changed = await execute(input('verification.verify_callback', { headers: tampered, body: body.replace(certifyId, 'CTother') }));
    expect(changed.success).toBe(false);

    const fresh = signedHeaders('app-9', 's3cret-9', { method: 'POST', path, body });
    expect((await execute(input('verification.verify_callback', { headers: fresh, body }))).data).toEqual({ certify_id: certifyId });
  });

  it('turns provider failures into Chinese messages and keeps raw text in diagnostics', async () => {
    sandbox.control.failNext('query', 'http_500');
    const down = await execute(input('verification.query', { certify_id: 'CT-x' }));
    expect(down).toMatchObject({ success: false, message: '实名认证服务暂时不可用，请稍后重试' });
    expect(down.message).not.toContain('internal error');
    expect(JSON.stringify(down.diagnostics)).toContain('internal error');

    const badSecret = await execute(input('verification.query', { certify_id: 'CT-x' }, { app_secret: 'wrong' }));
    expect(badSecret.message).toBe('实名认证服务鉴权失败，请检查应用 ID 和应用密钥');
    const missing = await execute(input('verification.query', { certify_id: 'CT-x' }));
    expect(missing.message).toBe('认证记录不存在');
  });

  it('reports health and configuration problems', async () => {
    expect(await execute(input('health_check', {}))).toMatchObject({ success: true, data: { reachable: true, authenticated: true } });
    expect(await execute(input('health_check', {}, { app_secret: 'wrong' }))).toMatchObject({ success: false, data: { authenticated: false } });
    const unreachable = await execute(input('health_check', {}, { base_url: 'http://127.0.0.1:1' }));
    expect(unreachable).toMatchObject({ success: false, message: '无法连接实名认证服务，请稍后重试', data: { reachable: false } });
    expect((await execute(input('health_check', {}, { app_id: '' }))).success).toBe(false);
    expect((await execute(input('verification.unknown', {}))).message).toBe('实名认证插件不支持该操作');
  });

  it('renders a QR code SVG from the certify URL', async () => {
    const svg = await renderQrSvg('https://example.com/verify/CT1');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('<path');
  });
});

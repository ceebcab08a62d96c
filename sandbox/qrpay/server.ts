import { generateKeyPair, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { QrpayGateway } from './gateway.js';
import { BodyTooLargeError, formParams, parseJsonObject, readBody, send, sendJson } from './http-io.js';
import { isLoopbackUrl, Notifier } from './notifier.js';
import { notificationFields, signNotification, tamperNotification } from './notifications.js';
import { messagePage, scanPage } from './pages.js';
import { publicKeyFromText } from './signing.js';
import { SandboxSwitches } from './switches.js';
import { TradeBook } from './trade-book.js';
import { isQrpayMethod, type FailureMode, type NotificationDelivery, type PayOutcome, type QrpaySandboxControl } from './types.js';

export type { FailNextOptions, NotificationDelivery, PayOutcome, QrpayMethod, QrpaySandboxControl, QrpayStats, TradeSnapshot } from './types.js';

const generateKeyPairAsync = promisify(generateKeyPair);

/** Default notification retry schedule (ms after each failed attempt). */
export const DEFAULT_NOTIFY_RETRY_DELAYS_MS = [1_000, 5_000, 15_000, 60_000];

export type QrpaySandboxOptions = {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Loopback only. */
  host?: '127.0.0.1';
  /** Verifies request signatures. */
  merchantPublicKeyPem: string;
  appId: string;
  notifyRetryDelaysMs?: number[];
};

export type QrpaySandbox = {
  /** The gateway endpoint (form POST), e.g. `http://127.0.0.1:PORT/gateway.do`. */
  url: string;
  baseUrl: string;
  /** What the merchant configures as the gateway public key. */
  gatewayPublicKeyPem: string;
  stop(): Promise<void>;
  control: QrpaySandboxControl;
};

async function rsaKeyPair(): Promise<{ privateKey: KeyObject; publicKey: KeyObject }> {
  return generateKeyPairAsync('rsa', { modulusLength: 2048 });
}

function positiveInt(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : fallback;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Starts the QR payment sandbox gateway (docs: qrpay-and-certify.md): the gateway endpoint,
 * the buyer's scan page and pay button, signed notifications with retries, and test switches
 * under `/__control/*` and on `control`.
 */
export async function startQrpaySandbox(options: QrpaySandboxOptions): Promise<QrpaySandbox> {
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') throw new Error('the qrpay sandbox listens on loopback only');
  const merchantPublicKey = publicKeyFromText(options.merchantPublicKeyPem);
  const gatewayKeys = await rsaKeyPair();
  const gatewayPublicKeyPem = gatewayKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  let forgerKey: Promise<KeyObject> | null = null;

  const notifier = new Notifier(options.notifyRetryDelaysMs ?? DEFAULT_NOTIFY_RETRY_DELAYS_MS);
  const switches = new SandboxSwitches();
  let trades: TradeBook | null = null;
  let gateway: QrpayGateway | null = null;

  function book(): TradeBook {
    if (!trades) throw new Error('sandbox not started');
    return trades;
  }

  function notifyTarget(outTradeNo: string, override: string | undefined): string {
    const url = override ?? book().get(outTradeNo)?.notifyUrl ?? null;
    if (!url) throw new Error(`trade ${outTradeNo} has no notify_url`);
    if (!isLoopbackUrl(url)) throw new Error('the qrpay sandbox only notifies loopback addresses');
    return url;
  }

  const observerFor = (outTradeNo: string) => ({
    attempt: (_url: string, acknowledged: boolean) => switches.countNotification(outTradeNo, acknowledged),
  });

  function dispatchNotifications(outTradeNo: string): void {
    const trade = book().get(outTradeNo);
    if (!trade?.notifyUrl) return;
    if (!isLoopbackUrl(trade.notifyUrl)) {
      switches.stats.notifications.refused_urls += 1;
      return;
    }
    const url = trade.notifyUrl;
    const fields = signNotification(notificationFields(trade, options.appId), gatewayKeys.privateKey);
    const copies = Math.max(1, switches.notificationCopies);
    void notifier.track(
      (async () => {
        for (let i = 0; i < copies; i++) await notifier.deliver(url, fields, observerFor(outTradeNo), true);
      })(),
    );
  }

  function pay(outTradeNo: string): PayOutcome {
    const outcome = book().pay(outTradeNo);
    if (outcome.ok) dispatchNotifications(outTradeNo);
    return outcome;
  }

  async function sendForged(outTradeNo: string, notifyUrl?: string): Promise<NotificationDelivery> {
    const trade = book().get(outTradeNo);
    if (!trade) throw new Error(`unknown trade ${outTradeNo}`);
    const url = notifyTarget(outTradeNo, notifyUrl);
    forgerKey ??= rsaKeyPair().then((pair) => pair.privateKey);
    const fields = signNotification(notificationFields(trade, options.appId), await forgerKey);
    switches.stats.notifications.forged += 1;
    return notifier.track(notifier.deliver(url, fields, { attempt: () => undefined }, false));
  }

  async function sendTampered(outTradeNo: string, totalAmount?: string, notifyUrl?: string): Promise<NotificationDelivery> {
    const trade = book().get(outTradeNo);
    if (!trade) throw new Error(`unknown trade ${outTradeNo}`);
    const url = notifyTarget(outTradeNo, notifyUrl);
    const genuine = signNotification(notificationFields(trade, options.appId), gatewayKeys.privateKey);
    const amount = totalAmount ?? (trade.totalAmount === '0.01' ? '0.02' : '0.01');
    switches.stats.notifications.tampered += 1;
    return notifier.track(notifier.deliver(url, tamperNotification(genuine, amount), { attempt: () => undefined }, false));
  }

  const control: QrpaySandboxControl = {
    failNext: (method, count, failOptions) => switches.failNext(method, count, failOptions),
    setDelay: (ms, method) => switches.setDelay(ms, method),
    tamperNextAnswers: (method, count) => switches.tamperNextAnswers(method, count),
    setNotificationCopies: (copies) => {
      switches.notificationCopies = Math.max(1, Math.floor(copies));
    },
    sendForgedNotification: (outTradeNo, o) => sendForged(outTradeNo, o?.notifyUrl),
    sendTamperedNotification: (outTradeNo, o) => sendTampered(outTradeNo, o?.totalAmount, o?.notifyUrl),
    pay,
    idle: () => notifier.idle(),
    stats: () => switches.snapshot(),
    trade: (outTradeNo) => book().snapshot(outTradeNo),
    reset: () => switches.reset(),
  };

  async function handleControl(req: IncomingMessage, res: ServerResponse, path: string, body: string): Promise<void> {
    if (req.method === 'GET' && path === 'stats') return sendJson(res, 200, control.stats());
    if (req.method === 'GET' && path.startsWith('trades/')) {
      const snapshot = control.trade(decodeURIComponent(path.slice('trades/'.length)));
      return snapshot ? sendJson(res, 200, snapshot) : sendJson(res, 404, { error: 'trade not found' });
    }
    if (req.method !== 'POST') return sendJson(res, 404, { error: 'unknown control' });
    const input = parseJsonObject(body);
    if (!input) return sendJson(res, 400, { error: 'body must be a JSON object' });
    const method = typeof input.method === 'string' ? input.method : '';
    const outTradeNo = optionalString(input.out_trade_no);
    switch (path) {
      case 'fail': {
        if (!isQrpayMethod(method)) return sendJson(res, 400, { error: 'unknown method' });
        const mode: FailureMode = input.mode === 'http500' ? 'http500' : 'business';
        control.failNext(method, positiveInt(input.count, 1), {
          mode,
          code: optionalString(input.code),
          subCode: optionalString(input.sub_code),
          msg: optionalString(input.msg),
          subMsg: optionalString(input.sub_msg),
        });
        return sendJson(res, 200, { ok: true });
      }
      case 'delay': {
        if (method !== '' && !isQrpayMethod(method)) return sendJson(res, 400, { error: 'unknown method' });
        control.setDelay(positiveInt(input.ms, 0), isQrpayMethod(method) ? method : undefined);
        return sendJson(res, 200, { ok: true });
      }
      case 'tamper-answers': {
        if (!isQrpayMethod(method)) return sendJson(res, 400, { error: 'unknown method' });
        control.tamperNextAnswers(method, positiveInt(input.count, 1));
        return sendJson(res, 200, { ok: true });
      }
      case 'duplicate-notifications':
        control.setNotificationCopies(positiveInt(input.copies, 1));
        return sendJson(res, 200, { ok: true });
      case 'forged-notification':
      case 'tampered-notification': {
        if (!outTradeNo || !book().get(outTradeNo)) return sendJson(res, 404, { error: 'trade not found' });
        const notifyUrl = optionalString(input.notify_url);
        const delivery =
          path === 'forged-notification'
            ? await control.sendForgedNotification(outTradeNo, { notifyUrl })
            : await control.sendTamperedNotification(outTradeNo, { notifyUrl, totalAmount: optionalString(input.total_amount) });
        return sendJson(res, 200, delivery);
      }
      case 'pay': {
        if (!outTradeNo) return sendJson(res, 400, { error: 'out_trade_no is required' });
        return sendJson(res, 200, control.pay(outTradeNo));
      }
      case 'reset':
        control.reset();
        return sendJson(res, 200, { ok: true });
      default:
        return sendJson(res, 404, { error: 'unknown control' });
    }
  }

  function handleScan(req: IncomingMessage, res: ServerResponse, rest: string): void {
    const wantsJson = (req.headers.accept ?? '').includes('application/json');
    const paying = rest.endsWith('/pay');
    let outTradeNo: string;
    try {
      outTradeNo = decodeURIComponent(paying ? rest.slice(0, -'/pay'.length) : rest);
    } catch {
      return send(res, 400, 'text/html; charset=utf-8', messagePage('请求无效', '交易号无效'));
    }
    if (!paying) {
      if (req.method !== 'GET') return send(res, 405, 'text/html; charset=utf-8', messagePage('请求无效', '不支持的请求方法'));
      const trade = book().scan(outTradeNo);
      if (!trade) return send(res, 404, 'text/html; charset=utf-8', messagePage('交易不存在', '二维码无效或已过期'));
      return send(res, 200, 'text/html; charset=utf-8', scanPage(trade));
    }
    if (req.method !== 'POST') return send(res, 405, 'text/html; charset=utf-8', messagePage('请求无效', '不支持的请求方法'));
    const outcome = pay(outTradeNo);
    if (wantsJson) {
      const status = outcome.ok ? 200 : outcome.reason === 'not_found' ? 404 : 409;
      return sendJson(res, status, outcome.ok ? { paid: true, ...outcome } : { paid: false, reason: outcome.reason });
    }
    if (outcome.ok) return send(res, 200, 'text/html; charset=utf-8', messagePage('支付成功', `已支付 ¥${outcome.totalAmount}`));
    const texts = { not_found: '交易不存在', already_paid: '该交易已支付', closed: '交易已关闭' } as const;
    return send(res, outcome.reason === 'not_found' ? 404 : 409, 'text/html; charset=utf-8', messagePage('无法支付', texts[outcome.reason]));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    if (url.pathname === '/gateway.do') {
      if (req.method !== 'POST' || !gateway) return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed');
      const reply = await gateway.handle(formParams(url, body));
      if (!reply) return send(res, 503, 'text/plain; charset=utf-8', 'stopping');
      return send(res, reply.status, reply.contentType, reply.body);
    }
    if (url.pathname.startsWith('/scan/')) return handleScan(req, res, url.pathname.slice('/scan/'.length));
    if (url.pathname.startsWith('/__control/')) return handleControl(req, res, url.pathname.slice('/__control/'.length), body);
    return sendJson(res, 404, { error: 'not found' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof BodyTooLargeError) return send(res, 413, 'text/plain; charset=utf-8', 'payload too large');
      sendJson(res, 500, { error: err instanceof Error ? err.message : 'internal error' });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${host}:${port}`;
  trades = new TradeBook(baseUrl);
  gateway = new QrpayGateway({
    appId: options.appId,
    merchantPublicKey,
    gatewayPrivateKey: gatewayKeys.privateKey,
    trades,
    switches,
    sleep: (ms) => notifier.sleep(ms),
  });

  let stopping: Promise<void> | null = null;
  return {
    url: `${baseUrl}/gateway.do`,
    baseUrl,
    gatewayPublicKeyPem,
    control,
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        notifier.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}

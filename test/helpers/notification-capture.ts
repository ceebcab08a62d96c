import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Stands where our notify route would be and keeps the gateway's genuinely signed
 * notifications, answering `fail` (so the gateway gives up after its retries). Tests then
 * replay the captured fields against the real notify route.
 */
export async function startNotificationCapture() {
  const received: Array<Record<string, string>> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('fail');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    for(outTradeNo: string) {
      return received.find((f) => f.out_trade_no === outTradeNo) ?? null;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Posts notification fields to our notify route as the gateway does (a form), answering status, content type and text. */
export async function postNotification(baseUrl: string, fields: Record<string, string>) {
  const res = await fetch(`${baseUrl}/api/v2/client/payment/qrpay/notify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

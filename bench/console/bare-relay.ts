// Baseline of the console bench: a bare websocket relay with nothing around it (no token, no
// database, no plugin, no RFB handshake of its own; the client authenticates to the upstream
// itself). The same `ws` library and the same back-pressure as the API's relay. Run as its own
// process (PORT, HOST) by bench/console/run-console.ts: `/relay?target=<upstream websocket URL>`.
import { createServer } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';

const HIGH_WATER = 4 * 1024 * 1024;
const LOW_WATER = 1024 * 1024;

function forward(data: Buffer, target: WebSocket, source: WebSocket): void {
  if (target.readyState !== WebSocket.OPEN) return;
  target.send(data, { binary: true }, (err) => {
    if (!err && source.isPaused && target.bufferedAmount < LOW_WATER) source.resume();
  });
  if (target.bufferedAmount > HIGH_WATER && !source.isPaused) source.pause();
}

const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1024 * 1024 });
const server = createServer((req, res) => {
  res.writeHead(req.url === '/health' ? 200 : 404, { 'content-type': 'text/plain' });
  res.end();
});

server.on('upgrade', (req, socket, head) => {
  const target = new URL(req.url ?? '/', 'http://bare.invalid').searchParams.get('target');
  if (!target) return socket.destroy();
  wss.handleUpgrade(req, socket, head, (browser) => {
    browser.binaryType = 'nodebuffer';
    const upstream = new WebSocket(target, ['binary'], { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
    upstream.binaryType = 'nodebuffer';
    const early: Buffer[] = [];
    browser.on('message', (data: Buffer) => (upstream.readyState === WebSocket.OPEN ? forward(data, upstream, browser) : early.push(data)));
    upstream.on('open', () => {
      for (const data of early.splice(0)) forward(data, upstream, browser);
    });
    upstream.on('message', (data: Buffer) => forward(data, browser, upstream));
    const close = () => {
      browser.terminate();
      upstream.terminate();
    };
    browser.on('close', close);
    upstream.on('close', close);
    browser.on('error', close);
    upstream.on('error', close);
  });
});

server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));

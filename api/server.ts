import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions, ServerResponse } from 'node:http';
import { type AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type Http2Bindings, type HttpBindings, type ServerType, serve } from '@hono/node-server';
import { ErrorCode } from '../lib/errors.js';
import { envelope } from './envelope.js';

/** Websocket upgrades (the console relay): the server's `upgrade` event, and ending what is open when the server stops. */
export type UpgradeHandler = {
  /** Whether this upgrade request is the handler's (by path); any other is served as a plain request. */
  handles(req: IncomingMessage): boolean;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
};

/**
 * With an `upgrade` listener Node hands every request carrying an `Upgrade` header to it. One
 * that is not for the upgrade handler (`curl --http2` asks for `h2c` on plain-HTTP requests) is
 * answered as without a listener: as an ordinary request, on a connection closed afterwards.
 * Node has already ended such a request's body stream (its bytes are in `head`): one announcing a
 * body gets 400 instead of being served without it.
 */
function serveAsRequest(server: ServerType, req: IncomingMessage, socket: Duplex): void {
  const announcesBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!(socket instanceof Socket) || announcesBody) {
    answerClientError(Object.assign(new Error('upgrade request with a body'), { code: 'HPE_INVALID_UPGRADE' }), socket as Socket);
    return;
  }
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.once('finish', () => {
    res.detachSocket(socket);
    socket.end();
  });
  server.emit('request', req, res);
}

/**
 * What `serveApp` needs of an app: Hono's `fetch`, which takes the Node bindings as its env, and
 * optionally an upgrade handler (WebSocket is outside the JSON envelope and Hono's routing).
 */
export type FetchApp = {
  fetch: (request: Request, env: HttpBindings | Http2Bindings) => Response | Promise<Response>;
  upgrade?: UpgradeHandler;
  /** Run on Node's response before `fetch`: headers every answer carries unless it sets its own (`writeHead` takes precedence). */
  prepare?: (incoming: IncomingMessage, outgoing: ServerResponse) => void;
  /** Answers a request before `fetch` (Hono is never reached) and returns true, or returns false. */
  answerDirectly?: (incoming: IncomingMessage, outgoing: ServerResponse) => boolean | Promise<boolean>;
};

export type ServedApp = {
  server: ServerType;
  /** The port actually bound (the given one, or the one picked for port 0). */
  port: number;
  /**
   * Stops accepting connections and closes idle keep-alive ones, ends open websockets (close code
   * 1001), lets requests in flight finish (even those whose client went away) for up to `graceMs`,
   * closing each connection as it goes idle, then closes whatever is left, so the caller may close
   * the pool. Resolves with the number of requests cut off by the grace running out.
   */
  stop(options?: { graceMs?: number }): Promise<number>;
};

/**
 * Requests Node's HTTP parser refuses before any app code runs (a URL or headers over 16 KB, a
 * broken request line) still get the envelope in Chinese, not Node's bare status line.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const message = tooLarge ? '请求网址或请求头过长' : '请求格式不正确';
  const body = JSON.stringify(envelope(null, message, ErrorCode.BAD_REQUEST));
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=UTF-8\r\nX-Content-Type-Options: nosniff\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The one way the API is served, by `api/main.ts` and by the test platform alike. The Node
 * bindings (the socket) are handed to the app on every request: `getConnInfo`, and so the client
 * address in login logs, sessions and the per-address login throttle, depends on them.
 */
export async function serveApp(app: FetchApp, options: { hostname: string; port: number }): Promise<ServedApp> {
  let inFlight = 0;
  const prepare = app.prepare;
  const fetch = async (request: Request, env: HttpBindings | Http2Bindings) => {
    inFlight += 1;
    try {
      if (prepare && env.outgoing instanceof ServerResponse) prepare(env.incoming as IncomingMessage, env.outgoing);
      return await app.fetch(request, env);
    } finally {
      inFlight -= 1;
    }
  };
  const server = await new Promise<ServerType>((resolve, reject) => {
    const direct = app.answerDirectly;
    const answering = (listener: RequestListener): RequestListener =>
      direct
        ? (req, res) => {
            const answered = direct(req, res);
            if (answered === false) void listener(req, res);
            else if (answered !== true) void answered.then((done) => done || listener(req, res));
          }
        : listener;
    const createServer: typeof createHttpServer = ((serverOptions: ServerOptions, listener: RequestListener) =>
      createHttpServer(serverOptions, answering(listener))) as typeof createHttpServer;
    const s = serve({ fetch, hostname: options.hostname, port: options.port, createServer }, () => {
      s.off('error', reject);
      s.on('clientError', answerClientError);
      const upgrade = app.upgrade;
      if (upgrade) {
        s.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
          upgrade.handles(req) ? upgrade.handleUpgrade(req, socket, head) : serveAsRequest(s, req, socket),
        );
      }
      resolve(s);
    });
    s.once('error', reject);
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    async stop({ graceMs = 10_000 } = {}) {
      const http = server as Server;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections between requests would hold the server open until they time out.
      http.closeIdleConnections();
      // Open websockets keep the server from closing: they are ended (and recorded) first.
      await app.upgrade?.close();
      const deadline = Date.now() + graceMs;
      while (inFlight > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        // A connection whose request was just answered would otherwise wait for its next one.
        http.closeIdleConnections();
      }
      const cutOff = inFlight;
      http.closeAllConnections();
      await closed;
      return cutOff;
    },
  };
}

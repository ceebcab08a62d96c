import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { DomainDeps } from '../../domain/deps.js';
import { finishVncSession } from '../../domain/services/console/vnc-session-end.js';
import { claimRelayToken, VNC_RELAY_PATH, VNC_TOKEN_PATTERN } from '../../domain/services/console/vnc-tokens.js';
import { clientAddress } from '../../lib/client-address.js';
import { ErrorCode, httpStatusFor } from '../../lib/errors.js';
import { unixSeconds } from '../../lib/time.js';
import type { UpgradeHandler } from '../server.js';
import { RelaySession, socketListeners } from './relay-session.js';

/** What the browser may send in one websocket message (key and pointer events, cut text). */
const BROWSER_MAX_MESSAGE = 1024 * 1024;

const REFUSED = '控制台令牌无效、已使用或已过期，请重新打开控制台';

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 500: 'Internal Server Error' };

/** A refused upgrade still answers the envelope (before the 101 this is plain HTTP). */
function refuse(socket: Duplex, code: number, message: string): void {
  if (socket.destroyed) return;
  const status = httpStatusFor(code);
  const body = JSON.stringify({ code, message, data: null, timestamp: unixSeconds() });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nContent-Type: application/json; charset=UTF-8\r\nCache-Control: no-store\r\n` +
      `X-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function requestUrl(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? '/', 'http://relay.invalid');
  } catch {
    return null;
  }
}

/** The websocket handshake headers `ws` will accept: checked before a token is spent on a request that cannot upgrade. */
function isWebsocketUpgrade(req: IncomingMessage): boolean {
  return (
    req.method === 'GET' &&
    (req.headers.upgrade ?? '').toLowerCase() === 'websocket' &&
    /^[+/0-9A-Za-z]{22}==$/.test(req.headers['sec-websocket-key'] ?? '') &&
    req.headers['sec-websocket-version'] === '13'
  );
}

/**
 * A browser's `Origin` (sent on every websocket it opens) must be our page's: this host or the
 * public base URL. Clients without one (not a browser) pass; the relay token is what counts.
 */
function originAllowed(req: IncomingMessage, publicBaseUrl: string): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    const url = new URL(origin);
    return url.host === req.headers.host || url.origin === new URL(publicBaseUrl).origin;
  } catch {
    return false;
  }
}

/**
 * The console websocket relay at `VNC_RELAY_PATH?token=<relay token>`, on the API server's
 * `upgrade` event (`serveApp`). The relay token is taken once (bound address, service still the
 * user's and active) before the 101; every refusal answers the JSON envelope and spends nothing
 * but the token it was given. Each accepted connection is a `RelaySession`. `close()` ends every
 * open session (each is recorded) when the server stops.
 */
export function createVncRelay(deps: DomainDeps): UpgradeHandler {
  const wss = new WebSocketServer({
    noServer: true,
    // Sessions take their sockets over from `ws` after the handshake: `ws` never sees them close.
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: BROWSER_MAX_MESSAGE,
    // noVNC may ask for `binary` (older websockify); no subprotocol is fine too.
    handleProtocols: (protocols) => (protocols.has('binary') ? 'binary' : false),
  });
  const sessions = new Set<RelaySession>();
  let closing = false;

  const handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const url = requestUrl(req);
    if (url?.pathname !== VNC_RELAY_PATH || closing) return refuse(socket, ErrorCode.NOT_FOUND, '资源不存在');
    if (!isWebsocketUpgrade(req) || !(socket instanceof Socket)) return refuse(socket, ErrorCode.BAD_REQUEST, '请求格式不正确');
    if (!originAllowed(req, deps.config.publicBaseUrl)) return refuse(socket, ErrorCode.FORBIDDEN, '不允许从该来源连接控制台');
    const token = url.searchParams.get('token') ?? '';
    if (!VNC_TOKEN_PATTERN.test(token)) return refuse(socket, ErrorCode.NOT_FOUND, REFUSED);
    const forwarded = req.headers['x-forwarded-for'];
    const ip = clientAddress(req.socket.remoteAddress ?? '', Array.isArray(forwarded) ? forwarded.join(',') : forwarded, deps.config.trustedProxies);
    claimRelayToken(deps, { token, ip }).then(
      (claim) => {
        if (!claim) return refuse(socket, ErrorCode.NOT_FOUND, REFUSED);
        if (socket.destroyed) {
          // The browser went away while the token was being checked: the session ends before it began.
          const end = { sessionId: claim.sessionId, serviceId: claim.serviceId, userId: claim.userId, ip, startedAt: claim.startedAt };
          finishVncSession(deps, { ...end, reason: 'browser_closed', connected: false, bytesToBrowser: 0, bytesFromBrowser: 0 }).catch((err: unknown) =>
            deps.logger.error({ err, vncSessionId: claim.sessionId }, 'vnc relay session not recorded'),
          );
          return;
        }
        const before = socketListeners(socket);
        wss.handleUpgrade(req, socket, head, (browser) => {
          const session = new RelaySession(deps, browser, socket, before, claim, ip);
          sessions.add(session);
          void session.done.then(() => sessions.delete(session));
          session.start();
          if (closing) void session.stop('shutdown');
        });
      },
      (err: unknown) => {
        deps.logger.error({ err }, 'vnc relay: token check failed');
        refuse(socket, ErrorCode.INTERNAL, '服务器内部错误，请稍后再试');
      },
    );
  };

  return {
    handles: (req) => requestUrl(req)?.pathname === VNC_RELAY_PATH,
    handleUpgrade,
    async close() {
      closing = true;
      await Promise.all([...sessions].map((session) => session.stop('shutdown')));
      wss.close();
    },
  };
}

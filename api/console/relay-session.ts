import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import type { VncCloseReason } from '../../db/models/vnc-session.js';
import type { DomainDeps } from '../../domain/deps.js';
import { finishVncSession } from '../../domain/services/console/vnc-session-end.js';
import { fetchUpstreamConsoleTicket } from '../../domain/services/console/vnc-ticket.js';
import type { ClaimedRelay } from '../../domain/services/console/vnc-tokens.js';
import { AppError } from '../../lib/errors.js';
import { ByteReader } from '../../lib/rfb/byte-reader.js';
import {
  parseVersion,
  RFB_VERSION_3_8,
  RFB_VERSION_LENGTH,
  RfbHandshakeError,
  rfbClientHandshake,
  SECURITY_NONE,
  SECURITY_RESULT_OK,
  securityResultFailure,
} from '../../lib/rfb/protocol.js';
import { closeFrame, FrameWatcher } from './ws-frames.js';

/** Largest message taken from the upstream console during its handshake. */
const UPSTREAM_MAX_MESSAGE = 1024 * 1024;
/** Bytes either side may send before its handshake is done (a browser sends a few dozen). */
const HANDSHAKE_BUFFER = 64 * 1024;
/** Ticket, upstream connection and both handshakes together. */
const HANDSHAKE_TIMEOUT_MS = 20_000;
/** A side that does not finish closing is cut off after this long. */
const CLOSE_GRACE_MS = 5_000;

/** Websocket close codes the browser sees (4000–4999 are the application's). */
const CLOSE_CODES: Partial<Record<VncCloseReason, [number, string]>> = {
  idle: [4001, '会话空闲超时'],
  max_duration: [4002, '会话时间已到'],
  upstream_closed: [1000, '上游控制台已断开'],
  upstream_failed: [1000, '上游控制台不可用'],
  protocol_error: [1002, '协议错误'],
  shutdown: [1001, '服务器维护'],
};

/** The socket events `ws` listens to; after the handshake the relay takes the raw sockets over. */
const SOCKET_EVENTS = ['data', 'end', 'close', 'error'] as const;
type Listener = (...args: unknown[]) => void;
export type SocketListeners = Record<(typeof SOCKET_EVENTS)[number], Listener[]>;

export function socketListeners(socket: Duplex): SocketListeners {
  return Object.fromEntries(SOCKET_EVENTS.map((event) => [event, socket.listeners(event) as Listener[]])) as SocketListeners;
}

/** Removes the listeners added since `before` (those of `ws`): the socket's bytes are no longer parsed by it. */
function detachWebsocket(socket: Duplex, before: SocketListeners): void {
  for (const event of SOCKET_EVENTS) {
    for (const listener of socket.listeners(event) as Listener[]) if (!before[event].includes(listener)) socket.removeListener(event, listener);
  }
}

/** What a browser is told when the upstream cannot be reached: Chinese, never upstream text. */
function upstreamFailureMessage(error: unknown): string {
  if (error instanceof AppError) return error.message;
  if (error instanceof RfbHandshakeError && error.kind === 'auth_failed') return '上游控制台认证失败，请稍后重试';
  return '上游控制台暂不可用，请稍后重试';
}

/**
 * One browser console session. Handshake, through `ws` on both sides: RFB 3.8 towards the
 * browser offering only the None security type, RFB 3.8 towards the upstream console with VNC
 * Authentication done here (the password comes from the upstream ticket, answers the DES
 * challenge and is dropped). Nothing of the upstream handshake (challenge, URL) reaches the
 * browser. Then the browser gets a successful SecurityResult and, in the same tick (both peers
 * are waiting: the browser for that result, the upstream for ClientInit), `ws` is detached from
 * both raw sockets and they are piped into each other: websocket frames pass unchanged (browser
 * frames are masked client frames, upstream frames unmasked server frames, no extension on
 * either side), with the streams' own back-pressure (a write over the high-water mark pauses the
 * reading side until `drain`). Frame headers are followed, not copied (`FrameWatcher`), to count
 * bytes, see activity and who closed. Ends on either side closing, idle or maximum time, and is
 * recorded once (`finishVncSession`).
 */
export class RelaySession {
  private readonly browserReader = new ByteReader(HANDSHAKE_BUFFER);
  private readonly upstreamReader = new ByteReader(HANDSHAKE_BUFFER);
  private upstream: WebSocket | null = null;
  private upstreamSocket: Socket | null = null;
  private upstreamListeners: SocketListeners | null = null;
  private readonly toBrowser = new FrameWatcher();
  private readonly toUpstream = new FrameWatcher();
  private piping = false;
  /** The side whose close frame passed first (the one that ended a piped session). */
  private firstClose: VncCloseReason | null = null;
  private ended = false;
  private connected = false;
  private failure: string | undefined;
  private pluginLogId: number | null = null;
  private handshakeBytesToBrowser = 0;
  private handshakeBytesFromBrowser = 0;
  private lastActivity = Date.now();
  private readonly timers: NodeJS.Timeout[] = [];
  private resolveDone: () => void = () => {};
  /** Resolves once the session is closed and recorded. */
  readonly done = new Promise<void>((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly deps: DomainDeps,
    private readonly browser: WebSocket,
    private readonly browserSocket: Socket,
    /** The browser socket's listeners before `ws` took it. */
    private readonly browserListeners: SocketListeners,
    private readonly claim: ClaimedRelay,
    private readonly ip: string,
  ) {
    browser.binaryType = 'nodebuffer';
    browser.on('message', (data: Buffer) => {
      this.lastActivity = Date.now();
      this.handshakeBytesFromBrowser += data.length;
      this.browserReader.push(data);
    });
    browser.on('close', () => this.end('browser_closed'));
    browser.on('error', () => this.end('browser_closed'));
  }

  start(): void {
    const { idleTimeoutSeconds, maxSessionSeconds } = this.deps.config.vnc;
    this.armIdle(idleTimeoutSeconds * 1000);
    this.timers.push(setTimeout(() => this.end('max_duration'), maxSessionSeconds * 1000));
    void this.handshake();
  }

  /** Ends the session (server shutdown) and waits until it is recorded. */
  stop(reason: VncCloseReason): Promise<void> {
    this.end(reason);
    return this.done;
  }

  private armIdle(idleMs: number): void {
    const wait = Math.max(10, idleMs - (Date.now() - this.lastActivity));
    this.timers.push(
      setTimeout(() => {
        if (Date.now() - this.lastActivity >= idleMs) this.end('idle');
        else if (!this.ended) this.armIdle(idleMs);
      }, wait),
    );
  }

  private sendToBrowser(bytes: Buffer): void {
    if (this.browser.readyState !== WebSocket.OPEN) return;
    this.handshakeBytesToBrowser += bytes.length;
    this.browser.send(bytes, { binary: true });
  }

  private async handshake(): Promise<void> {
    const deadline = setTimeout(() => {
      const timeout = new Error('handshake timeout');
      this.browserReader.fail(timeout);
      this.upstreamReader.fail(timeout);
    }, HANDSHAKE_TIMEOUT_MS);
    this.timers.push(deadline);
    const upstream = this.connectUpstream().then(
      () => null,
      (error: unknown) => error,
    );
    try {
      await this.browserHandshake();
    } catch {
      this.end('protocol_error');
      return;
    }
    const upstreamError = await upstream;
    clearTimeout(deadline);
    if (this.ended) return;
    if (upstreamError) {
      this.failure = upstreamFailureMessage(upstreamError);
      this.deps.logger.warn(
        { vncSessionId: this.claim.sessionId, serviceId: this.claim.serviceId, error: upstreamError instanceof Error ? `${upstreamError.name}: ${upstreamError.message}` : 'unknown' },
        'vnc relay: upstream console not reached',
      );
      this.sendToBrowser(securityResultFailure(this.failure));
      this.end('upstream_failed');
      return;
    }
    this.sendToBrowser(SECURITY_RESULT_OK);
    this.connected = true;
    this.startPiping();
  }

  /** The server side of RFB 3.8 towards the browser, up to its choice of security type. */
  private async browserHandshake(): Promise<void> {
    this.sendToBrowser(Buffer.from(RFB_VERSION_3_8, 'latin1'));
    const version = parseVersion(await this.browserReader.read(RFB_VERSION_LENGTH));
    if (!version || version.major !== 3 || version.minor < 8) throw new RfbHandshakeError('unsupported', 'browser does not speak RFB 3.8');
    this.sendToBrowser(Buffer.from([1, SECURITY_NONE]));
    if ((await this.browserReader.readU8()) !== SECURITY_NONE) {
      this.sendToBrowser(securityResultFailure('不支持的安全类型'));
      throw new RfbHandshakeError('unsupported', 'browser chose another security type');
    }
  }

  /** Ticket through the upstream plugin, websocket to the upstream console, VNC Authentication. */
  private async connectUpstream(): Promise<void> {
    const ticket = await fetchUpstreamConsoleTicket(this.deps, { serviceId: this.claim.serviceId, userId: this.claim.userId });
    this.pluginLogId = ticket.pluginLogId;
    if (this.ended) return;
    const socket = new WebSocket(ticket.websocketUrl, ['binary'], { perMessageDeflate: false, maxPayload: UPSTREAM_MAX_MESSAGE, handshakeTimeout: 10_000, followRedirects: false });
    socket.binaryType = 'nodebuffer';
    this.upstream = socket;
    // Emitted before `ws` attaches its listeners to the raw socket.
    socket.once('upgrade', (res) => {
      if (res.socket instanceof Socket) {
        this.upstreamSocket = res.socket;
        this.upstreamListeners = socketListeners(res.socket);
      }
    });
    // Before the upgrade completes: an RFB server speaks first, possibly in the same packet as its 101.
    socket.on('message', (data: Buffer) => {
      this.lastActivity = Date.now();
      this.upstreamReader.push(data);
    });
    socket.on('close', () => this.upstreamReader.fail(new Error('upstream closed')));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.on('error', (err) => this.upstreamReader.fail(err));
    if (!this.upstreamSocket) throw new Error('upstream socket not available');
    await rfbClientHandshake(this.upstreamReader, (bytes) => socket.send(bytes, { binary: true }), { password: ticket.password });
  }

  /** Hands both raw sockets over from `ws` to a pipe each way (see the class comment). */
  private startPiping(): void {
    const browser = this.browserSocket;
    const upstream = this.upstreamSocket as Socket;
    // What either side sent after its handshake goes on first, still framed by `ws`.
    const early = this.browserReader.drain();
    if (early.length > 0) this.upstream?.send(early, { binary: true });
    const late = this.upstreamReader.drain();
    if (late.length > 0) this.sendToBrowser(late);
    detachWebsocket(browser, this.browserListeners);
    detachWebsocket(upstream, this.upstreamListeners as SocketListeners);
    this.piping = true;
    browser.on('data', (chunk: Buffer) => {
      this.lastActivity = Date.now();
      this.toUpstream.push(chunk);
      if (this.toUpstream.closeSeen) this.firstClose ??= 'browser_closed';
    });
    upstream.on('data', (chunk: Buffer) => {
      this.lastActivity = Date.now();
      this.toBrowser.push(chunk);
      if (this.toBrowser.closeSeen) this.firstClose ??= 'upstream_closed';
    });
    browser.on('close', () => this.end(this.closedBy('browser_closed')));
    upstream.on('close', () => this.end(this.closedBy('upstream_closed')));
    browser.on('error', () => browser.destroy());
    upstream.on('error', () => upstream.destroy());
    upstream.pipe(browser);
    browser.pipe(upstream);
  }

  /** Who ended a piped session: the side whose close frame came first, else the socket that closed. */
  private closedBy(socketClosed: VncCloseReason): VncCloseReason {
    return this.firstClose ?? socketClosed;
  }

  private end(reason: VncCloseReason): void {
    if (this.ended) return;
    this.ended = true;
    for (const timer of this.timers) clearTimeout(timer);
    const closed = new Error(`session ended: ${reason}`);
    this.browserReader.fail(closed);
    this.upstreamReader.fail(closed);
    const [code, text] = CLOSE_CODES[reason] ?? [1000, ''];
    if (this.piping) this.closePiped(code, text);
    else this.closeWebsockets(code, text);
    void this.record(reason);
  }

  private closeWebsockets(code: number, text: string): void {
    for (const socket of [this.browser, this.upstream]) {
      if (!socket) continue;
      if (socket.readyState === WebSocket.OPEN) {
        socket.close(socket === this.browser ? code : 1000, socket === this.browser ? text : '');
        setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
      } else if (socket.readyState === WebSocket.CONNECTING) {
        socket.terminate();
      }
    }
  }

  /** A close frame to each side that is between frames and has not closed itself, then the sockets end. */
  private closePiped(code: number, text: string): void {
    const browser = this.browserSocket;
    const upstream = this.upstreamSocket as Socket;
    upstream.unpipe(browser);
    browser.unpipe(upstream);
    // Unpiping pauses a stream: keep reading (and dropping) what still comes, so the peers' FINs are seen and the sockets close.
    upstream.resume();
    browser.resume();
    if (browser.writable && this.toBrowser.atBoundary && !this.toBrowser.closeSeen && !this.toUpstream.closeSeen) browser.write(closeFrame(code, text, false));
    if (upstream.writable && this.toUpstream.atBoundary && !this.toUpstream.closeSeen && !this.toBrowser.closeSeen) upstream.write(closeFrame(1000, '', true));
    for (const socket of [browser, upstream]) {
      socket.end();
      setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
    }
  }

  private async record(reason: VncCloseReason): Promise<void> {
    const bytesToBrowser = this.handshakeBytesToBrowser + this.toBrowser.bytes;
    const bytesFromBrowser = this.handshakeBytesFromBrowser + this.toUpstream.bytes;
    const summary = { vncSessionId: this.claim.sessionId, serviceId: this.claim.serviceId, userId: this.claim.userId, reason, connected: this.connected, bytesToBrowser, bytesFromBrowser };
    try {
      await finishVncSession(this.deps, {
        sessionId: this.claim.sessionId,
        serviceId: this.claim.serviceId,
        userId: this.claim.userId,
        ip: this.ip,
        startedAt: this.claim.startedAt,
        reason,
        connected: this.connected,
        bytesToBrowser,
        bytesFromBrowser,
        ...(this.failure ? { failure: this.failure } : {}),
        pluginLogId: this.pluginLogId,
      });
      this.deps.logger.info(summary, 'vnc relay session ended');
    } catch (err) {
      this.deps.logger.error({ ...summary, err }, 'vnc relay session not recorded');
    } finally {
      this.resolveDone();
    }
  }
}

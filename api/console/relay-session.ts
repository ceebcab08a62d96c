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

/** Largest message taken from the upstream console (a raw full-screen update fits). */
const UPSTREAM_MAX_MESSAGE = 64 * 1024 * 1024;
/** Bytes either side may send before its handshake is done (a browser sends a few dozen). */
const HANDSHAKE_BUFFER = 64 * 1024;
/** Back-pressure: stop reading a side while the other has more than HIGH queued, resume below LOW. */
const HIGH_WATER = 4 * 1024 * 1024;
const LOW_WATER = 1024 * 1024;
/** Ticket, upstream connection and both handshakes together. */
const HANDSHAKE_TIMEOUT_MS = 20_000;
/** A side that does not finish its closing handshake is cut off after this long. */
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

/** What a browser is told when the upstream cannot be reached: Chinese, never upstream text. */
function upstreamFailureMessage(error: unknown): string {
  if (error instanceof AppError) return error.message;
  if (error instanceof RfbHandshakeError && error.kind === 'auth_failed') return '上游控制台认证失败，请稍后重试';
  return '上游控制台暂不可用，请稍后重试';
}

/**
 * One browser console session: RFB 3.8 towards the browser offering only the None security
 * type, RFB 3.8 towards the upstream console with VNC Authentication done here (the password
 * comes from the upstream ticket, answers the DES challenge and is dropped). Once both sides are
 * through, the browser gets a successful SecurityResult and bytes are relayed unchanged both
 * ways, each side paused while the other has too much queued. Nothing of the upstream handshake
 * (its challenge, its URL) reaches the browser. Ends on either side closing, idle or maximum
 * time, and is recorded once (`finishVncSession`).
 */
export class RelaySession {
  private readonly browserReader = new ByteReader(HANDSHAKE_BUFFER);
  private readonly upstreamReader = new ByteReader(HANDSHAKE_BUFFER);
  private upstream: WebSocket | null = null;
  private piping = false;
  private ended = false;
  private connected = false;
  private failure: string | undefined;
  private pluginLogId: number | null = null;
  private bytesToBrowser = 0;
  private bytesFromBrowser = 0;
  private lastActivity = Date.now();
  private readonly timers: NodeJS.Timeout[] = [];
  private resolveDone: () => void = () => {};
  /** Resolves once the session is closed and recorded. */
  readonly done = new Promise<void>((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly deps: DomainDeps,
    private readonly browser: WebSocket,
    private readonly claim: ClaimedRelay,
    private readonly ip: string,
  ) {
    browser.binaryType = 'nodebuffer';
    browser.on('message', (data: Buffer) => this.fromBrowser(data));
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

  private fromBrowser(data: Buffer): void {
    this.lastActivity = Date.now();
    this.bytesFromBrowser += data.length;
    if (!this.piping) return this.browserReader.push(data);
    if (this.upstream) this.forward(data, this.upstream, this.browser);
  }

  private fromUpstream(data: Buffer): void {
    this.lastActivity = Date.now();
    if (!this.piping) return this.upstreamReader.push(data);
    this.bytesToBrowser += data.length;
    if (this.upstream) this.forward(data, this.browser, this.upstream);
  }

  /** Sends to `target`; pauses `source` while `target` has more than HIGH_WATER queued. */
  private forward(data: Buffer, target: WebSocket, source: WebSocket): void {
    if (target.readyState !== WebSocket.OPEN) return;
    target.send(data, { binary: true }, (err) => {
      if (!err && source.isPaused && target.bufferedAmount < LOW_WATER) source.resume();
    });
    if (target.bufferedAmount > HIGH_WATER && !source.isPaused) source.pause();
  }

  private sendToBrowser(bytes: Buffer): void {
    if (this.browser.readyState !== WebSocket.OPEN) return;
    this.bytesToBrowser += bytes.length;
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
    this.piping = true;
    // What either side sent after its handshake (the browser's ClientInit) goes on in order.
    const early = this.browserReader.drain();
    if (early.length > 0 && this.upstream) this.forward(early, this.upstream, this.browser);
    const late = this.upstreamReader.drain();
    if (late.length > 0) this.sendToBrowser(late);
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
    // Before the upgrade completes: an RFB server speaks first, possibly in the same packet as its 101.
    socket.on('message', (data: Buffer) => this.fromUpstream(data));
    socket.on('close', () => {
      this.upstreamReader.fail(new Error('upstream closed'));
      if (this.piping) this.end('upstream_closed');
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.on('error', (err) => this.upstreamReader.fail(err));
    await rfbClientHandshake(this.upstreamReader, (bytes) => socket.send(bytes, { binary: true }), { password: ticket.password });
  }

  private end(reason: VncCloseReason): void {
    if (this.ended) return;
    this.ended = true;
    this.piping = false;
    for (const timer of this.timers) clearTimeout(timer);
    const closed = new Error(`session ended: ${reason}`);
    this.browserReader.fail(closed);
    this.upstreamReader.fail(closed);
    const [code, text] = CLOSE_CODES[reason] ?? [1000, ''];
    for (const socket of [this.browser, this.upstream]) {
      if (!socket) continue;
      if (socket.readyState === WebSocket.OPEN) {
        socket.close(socket === this.browser ? code : 1000, socket === this.browser ? text : '');
        setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
      } else if (socket.readyState === WebSocket.CONNECTING) {
        socket.terminate();
      }
    }
    void this.record(reason);
  }

  private async record(reason: VncCloseReason): Promise<void> {
    const summary = {
      vncSessionId: this.claim.sessionId,
      serviceId: this.claim.serviceId,
      userId: this.claim.userId,
      reason,
      connected: this.connected,
      bytesToBrowser: this.bytesToBrowser,
      bytesFromBrowser: this.bytesFromBrowser,
    };
    try {
      await finishVncSession(this.deps, {
        sessionId: this.claim.sessionId,
        serviceId: this.claim.serviceId,
        userId: this.claim.userId,
        ip: this.ip,
        startedAt: this.claim.startedAt,
        reason,
        connected: this.connected,
        bytesToBrowser: this.bytesToBrowser,
        bytesFromBrowser: this.bytesFromBrowser,
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

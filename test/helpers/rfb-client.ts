import { WebSocket } from 'ws';
import { ByteReader } from '../../lib/rfb/byte-reader.js';
import { decodePixel, decodePixelFormat, encodePixelFormat, type PixelFormat, rfbClientHandshake } from '../../lib/rfb/protocol.js';

export type ServerInit = { width: number; height: number; format: PixelFormat; name: string };

export type Frame = { width: number; height: number; format: PixelFormat; pixels: Buffer };

export type RfbSession = {
  serverInit: ServerInit;
  /** Every websocket message the server sent, in order, handshake included. */
  received: Buffer[];
  setPixelFormat(format: PixelFormat): void;
  /** A non-incremental update request for the whole screen, and the raw rectangles it answers, assembled. */
  requestFrame(): Promise<Frame>;
  /** Sends bytes as they are (a pointer event, garbage…). */
  sendRaw(bytes: Buffer): void;
  /**
   * From now on, hands every incoming message to `onBytes` instead of keeping it (bytes already
   * received and not read first): the bench counts throughput without holding frames.
   */
  stream(onBytes: (bytes: Buffer) => void): void;
  close(): void;
  /** Resolves when the connection closed, with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
};

export type RfbConnectOptions = {
  /** Answer VNC Authentication with this password (the bare relay of the bench); None otherwise. */
  password?: string;
  headers?: Record<string, string>;
  /** Connect from this local address (127.0.0.2: another client address on loopback). */
  localAddress?: string;
  /** Also given the websocket's incoming messages as they arrive (byte counting in the bench). */
  onMessage?: (bytes: Buffer) => void;
};

/** An upgrade the server refused: its HTTP status and body. */
export class UpgradeRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`upgrade refused with HTTP ${status}`);
  }
}

type OpenedSocket = {
  socket: WebSocket;
  reader: ByteReader;
  received: Buffer[];
  closed: Promise<{ code: number; reason: string }>;
  divert(onBytes: (bytes: Buffer) => void): void;
};

/** Listeners go on before the upgrade completes: a server speaks first, in the same packet as its 101. */
function openSocket(url: string, options: RfbConnectOptions): Promise<OpenedSocket> {
  const socket = new WebSocket(url, {
    perMessageDeflate: false,
    headers: options.headers ?? {},
    maxPayload: 256 * 1024 * 1024,
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  });
  socket.binaryType = 'nodebuffer';
  const reader = new ByteReader(512 * 1024 * 1024);
  const received: Buffer[] = [];
  let diverted: ((bytes: Buffer) => void) | null = null;
  socket.on('message', (data: Buffer) => {
    options.onMessage?.(data);
    if (diverted) return diverted(data);
    received.push(data);
    reader.push(data);
  });
  const divert = (onBytes: (bytes: Buffer) => void) => {
    const pending = reader.drain();
    diverted = onBytes;
    if (pending.length > 0) onBytes(pending);
  };
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.once('close', (code, reason) => {
      reader.fail(new Error(`closed with ${code} ${reason.toString()}`));
      resolve({ code, reason: reason.toString() });
    });
  });
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.on('error', (err) => reader.fail(err));
      resolve({ socket, reader, received, closed, divert });
    });
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => reject(new UpgradeRefused(res.statusCode ?? 0, body)));
    });
    socket.once('error', reject);
  });
}

/**
 * A small RFB 3.8 client over a websocket, as a browser's noVNC would be: the handshake (None,
 * or VNC Authentication with `password`), ClientInit (shared), ServerInit, then whole-screen
 * update requests with raw rectangles only. Keeps every message it received, for leak checks.
 */
export async function connectRfb(url: string, options: RfbConnectOptions = {}): Promise<RfbSession> {
  const { socket, reader, received, closed, divert } = await openSocket(url, options);
  const send = (bytes: Buffer) => socket.send(bytes);
  try {
    await rfbClientHandshake(reader, send, options.password === undefined ? {} : { password: options.password });
  } catch (err) {
    socket.close();
    throw err;
  }
  send(Buffer.from([1]));
  const head = await reader.read(20);
  const name = (await reader.read(await reader.readU32())).toString('utf8');
  const serverInit: ServerInit = { width: head.readUInt16BE(0), height: head.readUInt16BE(2), format: decodePixelFormat(head.subarray(4)), name };
  let format = serverInit.format;

  const readFrame = async (): Promise<Frame> => {
    for (;;) {
      const type = await reader.readU8();
      if (type === 2) continue; // Bell
      if (type === 3) {
        await reader.read(3);
        await reader.read(await reader.readU32());
        continue;
      }
      if (type !== 0) throw new Error(`unexpected server message ${type}`);
      await reader.read(1);
      const rects = await reader.readU16();
      const bytesPerPixel = format.bitsPerPixel / 8;
      const pixels = Buffer.alloc(serverInit.width * serverInit.height * bytesPerPixel);
      for (let i = 0; i < rects; i += 1) {
        const rect = await reader.read(12);
        const [x, y, w, h, encoding] = [rect.readUInt16BE(0), rect.readUInt16BE(2), rect.readUInt16BE(4), rect.readUInt16BE(6), rect.readInt32BE(8)];
        if (encoding !== 0) throw new Error(`unexpected encoding ${encoding}`);
        const data = await reader.read(w * h * bytesPerPixel);
        for (let row = 0; row < h; row += 1) {
          data.copy(pixels, ((y + row) * serverInit.width + x) * bytesPerPixel, row * w * bytesPerPixel, (row + 1) * w * bytesPerPixel);
        }
      }
      return { width: serverInit.width, height: serverInit.height, format, pixels };
    }
  };

  return {
    serverInit,
    received,
    setPixelFormat(next) {
      format = next;
      send(Buffer.concat([Buffer.from([0, 0, 0, 0]), encodePixelFormat(next)]));
    },
    async requestFrame() {
      send(fullUpdateRequest(serverInit.width, serverInit.height));
      return readFrame();
    },
    sendRaw: send,
    stream: divert,
    close: () => socket.close(),
    closed,
  };
}

/** A non-incremental FramebufferUpdateRequest for the whole screen. */
export function fullUpdateRequest(width: number, height: number): Buffer {
  const request = Buffer.alloc(10);
  request.writeUInt8(3, 0);
  request.writeUInt16BE(width, 6);
  request.writeUInt16BE(height, 8);
  return request;
}

/** The colour of one pixel of a frame. */
export function framePixel(frame: Frame, x: number, y: number): [number, number, number] {
  return decodePixel(frame.format, frame.pixels, (y * frame.width + x) * (frame.format.bitsPerPixel / 8));
}
